(function () {
	'use strict';
	/*
	 * The page's behaviour, no framework: a disk chooser, time charts zoomed
	 * together by dragging across one, a trigger marked on each, values on hover.
	 * It names no resource outside the page.
	 */
	var charts = Array.prototype.slice.call(document.querySelectorAll('svg.tchart'));
	var W = 1000, X0 = 70, view = null, tip = document.getElementById('tip');
	var trig = document.body.getAttribute('data-trigger');
	/* the SVG namespace, taken from the page so that it names no address */
	var NS = charts.length ? charts[0].namespaceURI : null;

	function el(name, attrs, parent) {
		var e = document.createElementNS(NS, name);

		Object.keys(attrs).forEach(function (k) { e.setAttribute(k, attrs[k]); });
		if (parent)
			parent.appendChild(e);
		return e;
	}

	function span(c) {
		return parseFloat(c.getAttribute('data-span')) || 1;
	}

	/* ticks every 1, 2 or 5 times a power of ten, about 10 across */
	function step(range) {
		var raw = range / 10, p = Math.pow(10, Math.floor(Math.log10(raw)));

		return raw / p < 2 ? 2 * p : raw / p < 5 ? 5 * p : 10 * p;
	}

	function axis(c) {
		var s = span(c), a = view ? view[0] : 0, b = view ? view[1] : s;
		var plot = c.querySelector('svg.plot'), h = parseFloat(plot.getAttribute('height'));
		var g = c.querySelector('g.xaxis'), d = step(b - a), t;

		plot.setAttribute('viewBox', (a / s * W) + ' 0 ' + ((b - a) / s * W) + ' ' + h);
		while (g.firstChild)
			g.removeChild(g.firstChild);
		for (t = Math.ceil(a / d) * d; t <= b + 1e-9; t += d) {
			var x = (t - a) / (b - a) * W;

			el('line', { x1: x, y1: 0, x2: x, y2: 4, stroke: '#999' }, g);
			el('text', { x: x, y: 16, 'text-anchor': 'middle' }, g).textContent =
				parseFloat(t.toPrecision(6)) + (t + d > b + 1e-9 ? ' s' : '');
		}
		var m = c.querySelector('line.trig');

		if (m) {
			var tx = parseFloat(trig);
			var on = tx >= a && tx <= b;

			m.style.display = on ? '' : 'none';
			m.setAttribute('x1', X0 + (tx - a) / (b - a) * W);
			m.setAttribute('x2', X0 + (tx - a) / (b - a) * W);
		}
	}

	function redraw() {
		charts.forEach(axis);
		document.getElementById('zoom').textContent = view ?
			'showing ' + view[0].toFixed(3) + ' to ' + view[1].toFixed(3) +
			' s; double-click a chart to reset' :
			'drag across a time chart to zoom them all; double-click to reset';
	}

	/* the time under a mouse event on chart c */
	function timeAt(c, e) {
		var r = c.getBoundingClientRect(), s = span(c);
		var a = view ? view[0] : 0, b = view ? view[1] : s;
		var f = Math.min(Math.max((e.clientX - r.left - X0) / W, 0), 1);

		return a + f * (b - a);
	}

	charts.forEach(function (c) {
		var from = null, x0 = 0, sel = null;

		if (trig !== null) {
			var h = c.querySelector('svg.plot').getAttribute('height');

			el('line', { 'class': 'trig', y1: 0, y2: h }, c);
		}
		/* drag across the chart: a band from where the button went down */
		c.addEventListener('mousedown', function (e) {
			from = timeAt(c, e);
			x0 = e.clientX - c.getBoundingClientRect().left;
			sel = el('rect', { 'class': 'sel', x: x0, y: 0, width: 0,
				height: c.getAttribute('height') }, c);
			e.preventDefault();
		});
		c.addEventListener('mousemove', function (e) {
			var x = e.clientX - c.getBoundingClientRect().left;

			if (!sel)
				return;
			sel.setAttribute('x', Math.min(x, x0));
			sel.setAttribute('width', Math.abs(x - x0));
		});
		window.addEventListener('mouseup', function (e) {
			var to, a, b;

			if (!sel)
				return;
			to = timeAt(c, e);
			a = Math.min(from, to);
			b = Math.max(from, to);
			c.removeChild(sel);
			sel = null;
			if (b - a > span(c) / 100000) {
				view = [a, b];
				redraw();
			}
		});
		c.addEventListener('dblclick', function () {
			view = null;
			redraw();
		});
	});

	/* a time chart's bar or cell, worded from its data- attributes and its chart's */
	function cellText(t) {
		var c = t.closest('svg.tchart'), g = t.parentNode, unit = c.getAttribute('data-unit');
		var t0 = parseFloat(t.getAttribute('data-t')), w = parseFloat(c.getAttribute('data-col'));
		var when = parseFloat(t0.toPrecision(6)) + '-' + parseFloat((t0 + w).toPrecision(6)) + ' s';

		if (t.hasAttribute('data-v'))
			return when + ': ' + t.getAttribute('data-v') + ' ' + unit;
		return when + ', ' + g.getAttribute('data-lo') + ' -> ' + g.getAttribute('data-hi') +
			' ' + unit + ': count ' + t.getAttribute('data-n');
	}

	/* values on hover, in a box that follows the mouse */
	document.addEventListener('mouseover', function (e) {
		var t = e.target, text = null;

		if (t instanceof SVGElement && t.hasAttribute('data-t'))
			text = cellText(t);
		else if (t.closest && t.closest('tr[title]'))
			text = t.closest('tr[title]').getAttribute('title');
		tip.style.display = text ? 'block' : 'none';
		tip.textContent = text || '';
	});
	document.addEventListener('mousemove', function (e) {
		tip.style.left = (e.clientX + 14) + 'px';
		tip.style.top = (e.clientY + 14) + 'px';
	});

	/* one disk, or all */
	var pick = document.getElementById('disk');

	if (pick) {
		pick.addEventListener('change', function () {
			Array.prototype.forEach.call(document.querySelectorAll('section.disk'), function (s) {
				s.style.display = !pick.value || s.getAttribute('data-disk') === pick.value ?
					'' : 'none';
			});
			Array.prototype.forEach.call(document.querySelectorAll('tr.proc, tr.slow'), function (r) {
				var d = r.getAttribute('data-disk');

				r.style.display = !pick.value || d === pick.value ? '' : 'none';
			});
		});
	}
	/* a link to the page can choose the disk and the time: page.html#disk=sda&t=9.5-10.5 */
	location.hash.replace(/^#/, '').split('&').forEach(function (kv) {
		var k = kv.split('=')[0], v = decodeURIComponent(kv.substring(k.length + 1));
		var t = /^([0-9.]+)-([0-9.]+)$/.exec(v);

		if (k === 'disk' && pick) {
			pick.value = v;
			pick.dispatchEvent(new Event('change'));
		} else if (k === 't' && t && parseFloat(t[2]) > parseFloat(t[1])) {
			view = [parseFloat(t[1]), parseFloat(t[2])];
		}
	});
	document.body.setAttribute('data-ready', '1');
	redraw();
})();
