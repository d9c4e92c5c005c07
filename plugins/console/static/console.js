// hookflow console v1: keeps the runs list live from the server's event
// stream. Rows arrive as HTML the server rendered (and escaped); nothing
// is fetched from anywhere else. The list never loses a run silently:
// the stream starts after the newest run the page was drawn with, a
// reconnection resumes after the last run received, and wherever runs
// could not be sent a row says how many (the status line keeps the sum).
"use strict";
(function () {
	// live is the state of one runs list.
	function live(table) {
		return {
			table: table,
			body: table.tBodies[0],
			max: parseInt(table.getAttribute("data-max"), 10) || 200,
			url: table.getAttribute("data-stream"),
			last: table.getAttribute("data-after") || "",
			status: document.getElementById("live-status"),
			state: document.getElementById("live-state"),
			toggle: document.getElementById("live-toggle"),
			fresh: 0,
			missed: 0,
			stream: null,
			paused: false,
			retry: null
		};
	}
	function trim(l) {
		while (l.body.rows.length > l.max) {
			l.body.deleteRow(l.body.rows.length - 1);
		}
	}
	function count(l) {
		var text = "Live: " + l.fresh + " new run" + (l.fresh === 1 ? "" : "s") + " since the page loaded";
		if (l.missed > 0) {
			text += "; " + l.missed + " runs could not be shown (see the marked rows)";
		}
		if (l.status) {
			l.status.textContent = text + ".";
		}
	}
	function show(l, s, text) {
		l.table.setAttribute("data-live", s);
		if (l.state) {
			l.state.setAttribute("data-state", s);
			l.state.textContent = text;
		}
	}
	function marker(l, n, text) {
		l.missed += n;
		l.table.setAttribute("data-missed", String(l.missed));
		count(l);
		var row = l.body.insertRow(0);
		row.className = "dropped";
		var cell = row.insertCell(0);
		cell.colSpan = 8;
		cell.textContent = text;
		trim(l);
	}
	function onRun(l, e) {
		l.last = e.lastEventId || l.last;
		if (e.lastEventId && l.body.querySelector('tr[data-id="' + e.lastEventId + '"]')) {
			return; // the page was drawn with it
		}
		var empty = document.getElementById("empty");
		if (empty) {
			empty.remove();
		}
		l.body.insertAdjacentHTML("afterbegin", e.data);
		l.fresh++;
		trim(l);
		count(l);
	}
	function onMissed(l, e) {
		if (e.data === "restart") {
			marker(l, 0, "The server restarted: runs of its earlier start are not shown.");
		} else {
			marker(l, parseInt(e.data, 10) || 0, e.data + " runs missed here: the console no longer keeps them.");
		}
	}
	function onError(l) {
		if (l.stream.readyState !== EventSource.CLOSED) {
			show(l, "reconnecting", "Disconnected: reconnecting…");
			return;
		}
		// Refused (too many viewers) or failed for good: try again
		// later, resuming after the last run.
		l.stream.close();
		show(l, "disconnected", "Disconnected: the server refused or ended the stream. Retrying in 10 s.");
		l.retry = setTimeout(function () { connect(l); }, 10000);
	}
	function connect(l) {
		l.retry = null;
		show(l, "connecting", "Connecting to the live stream…");
		var url = l.url;
		if (l.last) {
			url += (url.indexOf("?") < 0 ? "?" : "&") + "after=" + encodeURIComponent(l.last);
		}
		var s = new EventSource(url);
		l.stream = s;
		s.addEventListener("run", function (e) { onRun(l, e); });
		s.addEventListener("dropped", function (e) {
			marker(l, parseInt(e.data, 10) || 0, e.data + " runs missed here: this page read the stream slower than runs finished. Reload for the full list.");
		});
		s.addEventListener("missed", function (e) { onMissed(l, e); });
		s.addEventListener("open", function () { show(l, "live", "Live"); });
		s.addEventListener("error", function () { onError(l); });
	}
	function pauseOrResume(l) {
		l.paused = !l.paused;
		l.toggle.textContent = l.paused ? "Resume" : "Pause";
		l.toggle.setAttribute("aria-pressed", String(l.paused));
		if (!l.paused) {
			connect(l);
			return;
		}
		l.stream.close();
		if (l.retry) {
			clearTimeout(l.retry);
			l.retry = null;
		}
		show(l, "paused", "Paused: new runs wait on the server.");
	}
	function start() {
		var table = document.getElementById("runs");
		if (!table || !window.EventSource) {
			return;
		}
		var l = live(table);
		var bar = document.getElementById("live");
		if (bar && l.toggle) {
			bar.hidden = false;
			l.toggle.addEventListener("click", function () { pauseOrResume(l); });
		}
		connect(l);
	}
	if (document.readyState === "loading") {
		document.addEventListener("DOMContentLoaded", start);
	} else {
		start();
	}
})();
