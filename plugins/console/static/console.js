// hookflow console v1: keeps the runs list live from the server's event
// stream. Rows arrive as HTML the server rendered (and escaped); nothing
// is fetched from anywhere else.
"use strict";
(function () {
	function start() {
		var table = document.getElementById("runs");
		if (!table || !window.EventSource) {
			return;
		}
		var body = table.tBodies[0];
		var max = parseInt(table.getAttribute("data-max"), 10) || 200;
		var status = document.getElementById("live-status");
		var fresh = 0;
		var stream = new EventSource(table.getAttribute("data-stream"));
		function trim() {
			while (body.rows.length > max) {
				body.deleteRow(body.rows.length - 1);
			}
		}
		function say(text) {
			if (status) {
				status.textContent = text;
			}
		}
		stream.addEventListener("run", function (e) {
			var empty = document.getElementById("empty");
			if (empty) {
				empty.remove();
			}
			body.insertAdjacentHTML("afterbegin", e.data);
			fresh++;
			trim();
			say("Live: " + fresh + " new run" + (fresh === 1 ? "" : "s") + " since the page loaded.");
		});
		stream.addEventListener("dropped", function (e) {
			var row = body.insertRow(0);
			row.className = "dropped";
			var cell = row.insertCell(0);
			cell.colSpan = 8;
			cell.textContent = e.data + " runs not shown here: this page read the stream slower than runs finished. Reload for the full list.";
			trim();
		});
		stream.addEventListener("open", function () {
			table.setAttribute("data-live", "on");
		});
		stream.addEventListener("error", function () {
			table.setAttribute("data-live", "off");
		});
	}
	if (document.readyState === "loading") {
		document.addEventListener("DOMContentLoaded", start);
	} else {
		start();
	}
})();
