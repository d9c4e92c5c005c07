// hookflow console v1: keeps the runs list live from the server's event
// stream. Rows arrive as HTML the server rendered (and escaped); nothing
// is fetched from anywhere else. The list never loses a run silently:
// the stream starts after the newest run the page was drawn with, a
// reconnection resumes after the last run received, and wherever runs
// could not be sent a row says how many.
"use strict";
(function () {
	function start() {
		var table = document.getElementById("runs");
		if (!table || !window.EventSource) {
			return;
		}
		var body = table.tBodies[0];
		var max = parseInt(table.getAttribute("data-max"), 10) || 200;
		var url = table.getAttribute("data-stream");
		var last = table.getAttribute("data-after") || "";
		var status = document.getElementById("live-status");
		var bar = document.getElementById("live");
		var state = document.getElementById("live-state");
		var toggle = document.getElementById("live-toggle");
		var fresh = 0;
		var stream = null;
		var paused = false;
		var retry = null;
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
		function show(s, text) {
			table.setAttribute("data-live", s);
			if (state) {
				state.setAttribute("data-state", s);
				state.textContent = text;
			}
		}
		function marker(text) {
			var row = body.insertRow(0);
			row.className = "dropped";
			var cell = row.insertCell(0);
			cell.colSpan = 8;
			cell.textContent = text;
			trim();
		}
		function streamURL() {
			if (!last) {
				return url;
			}
			return url + (url.indexOf("?") < 0 ? "?" : "&") + "after=" + encodeURIComponent(last);
		}
		function connect() {
			retry = null;
			show("connecting", "Connecting to the live stream…");
			stream = new EventSource(streamURL());
			stream.addEventListener("run", function (e) {
				last = e.lastEventId || last;
				if (e.lastEventId && body.querySelector('tr[data-id="' + e.lastEventId + '"]')) {
					return; // the page was drawn with it
				}
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
				marker(e.data + " runs missed here: this page read the stream slower than runs finished. Reload for the full list.");
			});
			stream.addEventListener("missed", function (e) {
				if (e.data === "restart") {
					marker("The server restarted: runs of its earlier start are not shown.");
				} else {
					marker(e.data + " runs missed here: the console no longer keeps them.");
				}
			});
			stream.addEventListener("open", function () {
				show("live", "Live");
			});
			stream.addEventListener("error", function () {
				if (stream.readyState === EventSource.CLOSED) {
					// Refused (too many viewers) or failed for good: try
					// again later, resuming after the last run.
					stream.close();
					show("disconnected", "Disconnected: the server refused or ended the stream. Retrying in 10 s.");
					retry = setTimeout(connect, 10000);
				} else {
					show("reconnecting", "Disconnected: reconnecting…");
				}
			});
		}
		function pause() {
			paused = true;
			if (stream) {
				stream.close();
			}
			if (retry) {
				clearTimeout(retry);
				retry = null;
			}
			show("paused", "Paused: new runs wait on the server.");
			toggle.textContent = "Resume";
			toggle.setAttribute("aria-pressed", "true");
		}
		function resume() {
			paused = false;
			toggle.textContent = "Pause";
			toggle.setAttribute("aria-pressed", "false");
			connect();
		}
		if (bar && toggle) {
			bar.hidden = false;
			toggle.addEventListener("click", function () {
				if (paused) {
					resume();
				} else {
					pause();
				}
			});
		}
		connect();
	}
	if (document.readyState === "loading") {
		document.addEventListener("DOMContentLoaded", start);
	} else {
		start();
	}
})();
