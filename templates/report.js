/* omplens report.html: behaviour of the page (embedded at build time).
 * Sortable and filterable tables, navigation that opens collapsed parts,
 * and the timeline canvas. The page is complete without it; nothing here
 * builds HTML from strings: text is set with textContent. */
(function () {
  'use strict';

  /* ---- Navigation: open what holds the target, scroll, flash ---------------- */

  function reveal(id) {
    var el = document.getElementById(id);
    if (!el) return false;
    for (var p = el; p; p = p.parentElement)
      if (p.tagName === 'DETAILS') p.open = true;
    el.scrollIntoView({ block: 'center' });
    if (el.classList.contains('ln')) {
      el.classList.remove('flash');
      void el.offsetWidth; /* restart the animation */
      el.classList.add('flash');
    }
    return true;
  }

  function go(id) {
    if (history.replaceState) history.replaceState(null, '', '#' + id);
    reveal(id);
  }

  document.addEventListener('click', function (ev) {
    var a = ev.target.closest && ev.target.closest('a[href^="#"]');
    if (a) {
      var id = decodeURIComponent(a.getAttribute('href').slice(1));
      if (id && document.getElementById(id)) {
        ev.preventDefault();
        go(id);
      }
      return;
    }
    var row = ev.target.closest && ev.target.closest('tr[data-target]');
    if (row) go(row.getAttribute('data-target'));
  });

  document.addEventListener('keydown', function (ev) {
    var row = ev.target.closest && ev.target.closest('tr[data-target]');
    if (row && (ev.key === 'Enter' || ev.key === ' ')) {
      ev.preventDefault();
      go(row.getAttribute('data-target'));
    }
  });

  window.addEventListener('hashchange', function () { reveal(decodeURIComponent(location.hash.slice(1))); });

  /* ---- Tables: sort by clicking a header, filter with a text box ------------- */

  function cellValue(row, index, numeric) {
    var cell = row.cells[index];
    var v = cell ? (cell.getAttribute('data-v') || cell.textContent) : '';
    return numeric ? parseFloat(v) || 0 : v.toLowerCase();
  }

  function sortTable(table, th) {
    var index = Array.prototype.indexOf.call(th.parentNode.children, th);
    var numeric = th.getAttribute('data-type') === 'num';
    var wasAsc = th.classList.contains('sorted-asc'), wasDesc = th.classList.contains('sorted-desc');
    /* A click reverses the order; a first click shows the largest numbers first, or A to Z. */
    var desc = wasAsc ? true : wasDesc ? false : numeric;
    Array.prototype.forEach.call(th.parentNode.children, function (h) {
      h.classList.remove('sorted-asc', 'sorted-desc');
      h.removeAttribute('aria-sort');
    });
    th.classList.add(desc ? 'sorted-desc' : 'sorted-asc');
    th.setAttribute('aria-sort', desc ? 'descending' : 'ascending');
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = cellValue(a, index, numeric), y = cellValue(b, index, numeric);
      var r = x < y ? -1 : x > y ? 1 : 0;
      return desc ? -r : r;
    });
    rows.forEach(function (r) { body.appendChild(r); });
  }

  Array.prototype.forEach.call(document.querySelectorAll('table.sortable'), function (table) {
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th) {
      th.addEventListener('click', function () { sortTable(table, th); });
      th.addEventListener('keydown', function (ev) {
        if (ev.key === 'Enter') sortTable(table, th);
      });
    });
  });

  /* A row shows when it has every word of the table's text box and, where
   * the table has a "with findings" box that is ticked, findings. */
  function applyFilters(table) {
    var input = document.querySelector('input.filter[data-table="' + table.id + '"]');
    var only = document.querySelector('input.only-findings[data-table="' + table.id + '"]');
    var words = input ? input.value.toLowerCase().split(/\s+/).filter(Boolean) : [];
    var empty = table.parentNode.querySelector('.filter-empty');
    var shown = 0;
    Array.prototype.forEach.call(table.tBodies[0].rows, function (row) {
      var text = row.textContent.toLowerCase();
      var ok = words.every(function (w) { return text.indexOf(w) >= 0; }) &&
               !(only && only.checked && row.getAttribute('data-findings') !== '1');
      row.hidden = !ok;
      shown += ok;
    });
    if (empty) empty.hidden = shown > 0;
  }

  Array.prototype.forEach.call(document.querySelectorAll('input.filter, input.only-findings'), function (input) {
    var table = document.getElementById(input.getAttribute('data-table'));
    if (!table) return;
    input.addEventListener(input.type === 'checkbox' ? 'change' : 'input', function () { applyFilters(table); });
  });

  Array.prototype.forEach.call(document.querySelectorAll('button.expand-all, button.collapse-all'), function (b) {
    b.addEventListener('click', function () {
      var section = document.getElementById(b.getAttribute('data-section'));
      var open = b.classList.contains('expand-all');
      Array.prototype.forEach.call(section.querySelectorAll('details.finding'), function (d) { d.open = open; });
    });
  });

  /* ---- Timeline ------------------------------------------------------------- */

  var ITEM = 8; /* begin, duration, kind, count, wasted, finding, bytes, site */
  var AXIS_H = 26, TRACK_H = 20, LANE_GAP = 8, PAD = 6;
  /* Width of the lane names: narrower on a phone, to leave room for the plot. */
  function labelWidth(width) { return width < 560 ? 120 : 170; }
  var css = getComputedStyle(document.documentElement);
  function color(name) { return css.getPropertyValue(name).trim() || '#888'; }
  var KIND_COLOR = {
    'kernel': color('--k-kernel'), 'h2d': color('--k-h2d'), 'd2h': color('--k-d2h'),
    'd2d': color('--k-d2d'), 'alloc': color('--k-alloc'), 'delete': color('--k-delete'),
    'target': color('--k-target'), 'target enter data': color('--k-enter'),
    'target exit data': color('--k-exit'), 'target update': color('--k-update'),
    'host wait': color('--k-wait')
  };
  var WASTED = color('--k-wasted');
  /* The kinds in words, for the details on hover. */
  var KIND_WORDS = {
    'h2d': 'host-to-device copy', 'd2h': 'device-to-host copy', 'd2d': 'device-to-device copy',
    'alloc': 'allocation', 'delete': 'release', 'target': 'target region',
    'host wait': 'host wait (the thread is blocked)'
  };
  /* The same, plural, for the selection and the histogram. */
  var KIND_PLURAL = {
    'kernel': 'kernels', 'h2d': 'host-to-device copies', 'd2h': 'device-to-host copies',
    'd2d': 'device-to-device copies', 'alloc': 'allocations', 'delete': 'releases',
    'target': 'target regions', 'target enter data': 'target enter data constructs',
    'target exit data': 'target exit data constructs', 'target update': 'target update constructs',
    'host wait': 'host waits'
  };
  function plural(kind) { return KIND_PLURAL[kind] || kind; }
  /* Operations that run on a device: a directive's time is theirs (its
   * constructs contain them and would count them twice). */
  var DEVICE_KINDS = { 'kernel': 1, 'h2d': 1, 'd2h': 1, 'd2d': 1, 'alloc': 1, 'delete': 1 };
  /* Colours of the directives with most time when colouring by directive;
   * the others share OTHER. */
  var PALETTE = ['#4263eb', '#e8590c', '#2b8a3e', '#c2255c', '#1098ad', '#7048e8',
                 '#f59f00', '#5c940d', '#862e9c', '#d6336c', '#0b7285', '#a61e4d'];
  var OTHER = '#ced4da';

  function fmtNs(ns) {
    if (ns < 1e3) return Math.round(ns) + ' ns';
    if (ns < 1e6) return (ns / 1e3).toFixed(ns < 1e4 ? 2 : 1) + ' \u00b5s';
    if (ns < 1e9) return (ns / 1e6).toFixed(ns < 1e7 ? 2 : 1) + ' ms';
    return (ns / 1e9).toFixed(2) + ' s';
  }

  function fmtBytes(b) {
    var units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'], u = 0;
    while (b >= 1024 && u < units.length - 1) { b /= 1024; u++; }
    return (u ? b.toFixed(1) : String(b)) + ' ' + units[u];
  }

  /* A "nice" tick step (1, 2 or 5 times a power of ten) for about n ticks. */
  function tickStep(range, n) {
    var raw = range / n, p = Math.pow(10, Math.floor(Math.log10(raw)));
    var m = raw / p;
    return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
  }

  function Timeline(box, data) {
    this.box = box;
    this.canvas = box.querySelector('canvas');
    this.tip = box.querySelector('.timeline-tip');
    this.data = data;
    this.tracks = [];
    var y = AXIS_H + PAD, self = this;
    data.lanes.forEach(function (lane) {
      lane.tracks.forEach(function (t, i) {
        var maxDur = 0;
        for (var k = 1; k < t.items.length; k += ITEM) maxDur = Math.max(maxDur, t.items[k]);
        var tr = { lane: lane.name, name: t.name, first: i === 0, single: lane.tracks.length === 1,
                   items: t.items, n: t.items.length / ITEM, busy: t.busy || null,
                   maxDur: maxDur, merged: t.merged, y: y };
        tr.sums = prefixSums(tr);
        self.merged = self.merged || !!t.merged;
        self.tracks.push(tr);
        y += TRACK_H;
      });
      y += LANE_GAP;
    });
    this.cells = cellSums(data.directive_cells || []);
    this.height = Math.max(y + PAD, 90);
    this.t0 = 0;
    this.t1 = Math.max(data.span, 1);
    this.sel = null;
    this.colourBy = 'kind';
    this.siteColour = {};
    this.total = this.stats(-Infinity, Infinity);
    this.total.sites.slice(0, PALETTE.length).forEach(function (s, i) { self.siteColour[s.site] = PALETTE[i]; });
    this.bind();
    this.resize();
  }

  /* ---- Selection statistics: prefix sums, so that an interval costs two
   * binary searches per track and per directive, not a scan of its items. */

  /* Per kind present on the track: running count, time and bytes of its items. */
  function prefixSums(tr) {
    var sums = {}, it = tr.items;
    for (var i = 0; i < tr.n; i++) {
      var k = it[i * ITEM + 2];
      if (!sums[k]) sums[k] = { n: new Float64Array(tr.n + 1), busy: new Float64Array(tr.n + 1),
                                bytes: new Float64Array(tr.n + 1) };
    }
    Object.keys(sums).forEach(function (key) {
      var s = sums[key], kind = Number(key);
      for (var i = 0; i < tr.n; i++) {
        var o = i * ITEM, mine = it[o + 2] === kind;
        s.n[i + 1] = s.n[i] + (mine ? it[o + 3] : 0);
        s.busy[i + 1] = s.busy[i] + (mine ? (tr.busy ? tr.busy[i] : it[o + 1]) : 0);
        s.bytes[i + 1] = s.bytes[i] + (mine ? it[o + 6] : 0);
      }
    });
    return sums;
  }

  /* Per directive, its cells (quantum, count, time) sorted by quantum, with
   * running sums; from the (quantum, site, count, time) quadruples. */
  function cellSums(flat) {
    var bySite = {}, list = [];
    for (var i = 0; i + 3 < flat.length; i += 4)
      (bySite[flat[i + 1]] || (bySite[flat[i + 1]] = [])).push([flat[i], flat[i + 2], flat[i + 3]]);
    Object.keys(bySite).forEach(function (site) {
      var cells = bySite[site].sort(function (x, y) { return x[0] - y[0]; }), m = cells.length;
      var q = new Float64Array(m), n = new Float64Array(m + 1), busy = new Float64Array(m + 1);
      for (var j = 0; j < m; j++) {
        q[j] = cells[j][0];
        n[j + 1] = n[j] + cells[j][1];
        busy[j + 1] = busy[j] + cells[j][2];
      }
      list.push({ site: Number(site), q: q, n: n, busy: busy });
    });
    return list;
  }

  /* Index of the first item that begins at or after t. */
  function firstFrom(track, t) {
    var lo = 0, hi = track.n;
    while (lo < hi) {
      var mid = (lo + hi) >> 1;
      if (track.items[mid * ITEM] < t) lo = mid + 1; else hi = mid;
    }
    return lo;
  }

  function lowerBound(arr, v) {
    var lo = 0, hi = arr.length;
    while (lo < hi) {
      var mid = (lo + hi) >> 1;
      if (arr[mid] < v) lo = mid + 1; else hi = mid;
    }
    return lo;
  }

  /* The interval a selection from a to b stands for: with merged tracks, the
   * quanta it touches, so that every group of operations is wholly in or out. */
  Timeline.prototype.snap = function (a, b) {
    var lo = Math.min(a, b), hi = Math.max(a, b), q = this.data.quantum || 1;
    if (!this.merged) return { from: lo, to: hi };
    var from = Math.floor(lo / q) * q, to = Math.ceil(hi / q) * q;
    return { from: from, to: to > from ? to : from + q };
  };

  /* What began in [from, to): per kind (operations, summed durations, bytes)
   * and per directive (device operations, summed durations), by time. */
  Timeline.prototype.stats = function (from, to) {
    var kinds = {}, sites = {}, data = this.data, q = data.quantum || 1, self = this;
    this.tracks.forEach(function (tr) {
      var i0 = firstFrom(tr, from), i1 = firstFrom(tr, to);
      Object.keys(tr.sums).forEach(function (key) {
        var s = tr.sums[key], name = data.kinds[key], n = s.n[i1] - s.n[i0];
        if (!n) return;
        var k = kinds[name] || (kinds[name] = { kind: name, n: 0, busy: 0, bytes: 0 });
        k.n += n;
        k.busy += s.busy[i1] - s.busy[i0];
        k.bytes += s.bytes[i1] - s.bytes[i0];
      });
      if (self.cells.length || tr.merged) return;
      for (var i = i0; i < i1; i++) { /* operations one by one: no cells needed */
        var o = i * ITEM;
        if (!DEVICE_KINDS[data.kinds[tr.items[o + 2]]]) continue;
        var d = sites[tr.items[o + 7]] || (sites[tr.items[o + 7]] = { site: tr.items[o + 7], n: 0, busy: 0 });
        d.n += tr.items[o + 3];
        d.busy += tr.items[o + 1];
      }
    });
    this.cells.forEach(function (c) {
      var j0 = lowerBound(c.q, from / q), j1 = lowerBound(c.q, to / q), n = c.n[j1] - c.n[j0];
      if (n) sites[c.site] = { site: c.site, n: n, busy: c.busy[j1] - c.busy[j0] };
    });
    var list = Object.keys(sites).map(function (k) { return sites[k]; });
    list.sort(function (x, y) { return y.busy - x.busy || y.n - x.n || x.site - y.site; });
    var order = data.kinds.filter(function (k) { return kinds[k]; }).map(function (k) { return kinds[k]; });
    Object.keys(kinds).forEach(function (k) { if (data.kinds.indexOf(k) < 0) order.push(kinds[k]); });
    return { from: from, to: to, kinds: order, sites: list };
  };

  Timeline.prototype.siteName = function (site) {
    return site >= 0 && site < this.data.sites.length ? this.data.sites[site] : 'no known directive';
  };

  /* The colour of an item: its kind's, or its directive's. */
  Timeline.prototype.itemColour = function (it, o) {
    if (this.colourBy === 'directive') return this.siteColour[it[o + 7]] || OTHER;
    return KIND_COLOR[this.data.kinds[it[o + 2]]] || '#888';
  };

  Timeline.prototype.resize = function () {
    var dpr = window.devicePixelRatio || 1;
    this.width = this.box.clientWidth || 800;
    this.lw = labelWidth(this.width);
    this.canvas.width = Math.round(this.width * dpr);
    this.canvas.height = Math.round(this.height * dpr);
    this.canvas.style.height = this.height + 'px';
    this.ctx = this.canvas.getContext('2d');
    this.ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    this.draw();
  };

  Timeline.prototype.scale = function () { return (this.width - this.lw - PAD) / (this.t1 - this.t0); };
  Timeline.prototype.xOf = function (t) { return this.lw + (t - this.t0) * this.scale(); };
  Timeline.prototype.tOf = function (x) { return this.t0 + (x - this.lw) / this.scale(); };

  /* Index of the first item that may reach t (items are sorted by begin). */
  function firstVisible(track, t) {
    var lo = 0, hi = track.n, from = t - track.maxDur;
    while (lo < hi) {
      var mid = (lo + hi) >> 1;
      if (track.items[mid * ITEM] < from) lo = mid + 1; else hi = mid;
    }
    return lo;
  }

  Timeline.prototype.drawAxis = function (c) {
    var step = tickStep(this.t1 - this.t0, Math.max(2, (this.width - this.lw) / 110));
    c.fillStyle = '#5f6b7a';
    c.strokeStyle = '#eef0f3';
    c.font = '11px system-ui, sans-serif';
    c.textBaseline = 'middle';
    for (var t = Math.ceil(this.t0 / step) * step; t <= this.t1; t += step) {
      var x = Math.round(this.xOf(t)) + 0.5;
      c.beginPath();
      c.moveTo(x, AXIS_H - 4);
      c.lineTo(x, this.height);
      c.stroke();
      c.fillText(fmtNs(t), x + 3, AXIS_H / 2);
    }
    c.strokeStyle = '#d0d5dd';
    c.beginPath();
    c.moveTo(0, AXIS_H + 0.5);
    c.lineTo(this.width, AXIS_H + 0.5);
    c.stroke();
  };

  Timeline.prototype.drawLabels = function (c) {
    c.fillStyle = '#fafbfc';
    var lw = this.lw;
    c.fillRect(0, AXIS_H + 1, lw - 4, this.height);
    c.textBaseline = 'middle';
    this.tracks.forEach(function (tr) {
      if (tr.first) {
        c.fillStyle = '#1d2330';
        c.font = '600 12px system-ui, sans-serif';
        c.fillText(tr.lane, 10, tr.y + TRACK_H / 2);
      }
      if (tr.single) return; /* a lane of one track needs no track name */
      c.fillStyle = '#5f6b7a'; /* the page's muted text: 4.5:1 contrast */
      c.font = '11px system-ui, sans-serif';
      c.textAlign = 'right';
      c.fillText(tr.name, lw - 12, tr.y + TRACK_H / 2);
      c.textAlign = 'left';
    });
  };

  /* Draws the items of a track; several items in one pixel column are drawn
   * once. Wasteful operations get a red mark under them. */
  Timeline.prototype.drawTrack = function (c, tr) {
    var it = tr.items, s = this.scale(), lw = this.lw;
    var y = tr.y + 2, h = TRACK_H - 8, lastX = -1, lastKind = '', lastWaste = -1;
    c.fillStyle = WASTED;
    for (var i = firstVisible(tr, this.t0); i < tr.n; i++) {
      var o = i * ITEM, b = it[o];
      if (b > this.t1) break;
      var x = lw + (b - this.t0) * s, w = Math.max(it[o + 1] * s, 1);
      if (x + w < lw) continue;
      if (x < lw) { w -= lw - x; x = lw; }
      var px = Math.floor(x);
      if (it[o + 4] > 0 && (w > 1 || px !== lastWaste)) {
        c.fillStyle = WASTED;
        c.fillRect(x, y + h + 1.5, w, 2.5);
        lastWaste = px;
      }
      var fill = this.itemColour(it, o);
      if (w <= 1 && px === lastX && fill === lastKind) continue;
      lastX = px;
      lastKind = fill;
      c.globalAlpha = it[o + 3] > 1 ? 0.7 : 1;
      c.fillStyle = fill;
      c.fillRect(x, y, w, h);
      c.globalAlpha = 1;
    }
  };

  Timeline.prototype.draw = function () {
    var c = this.ctx, self = this;
    c.clearRect(0, 0, this.width, this.height);
    this.drawAxis(c);
    c.save();
    c.beginPath();
    c.rect(this.lw, AXIS_H + 1, this.width - this.lw, this.height);
    c.clip();
    this.tracks.forEach(function (tr) {
      c.fillStyle = tr.first ? '#fbfbfd' : '#f7f8fa';
      c.fillRect(self.lw, tr.y, self.width - self.lw, TRACK_H);
      self.drawTrack(c, tr);
    });
    c.restore();
    this.drawSelection(c);
    this.drawLabels(c);
    this.canvas.setAttribute('data-drawn', String(++this.draws || (this.draws = 1)));
  };

  /* The selected interval: shaded, with its edges drawn down to the axis. */
  Timeline.prototype.drawSelection = function (c) {
    if (!this.sel) return;
    var x0 = this.xOf(this.sel.from), x1 = this.xOf(this.sel.to);
    c.save();
    c.beginPath();
    c.rect(this.lw, 0, this.width - this.lw, this.height);
    c.clip();
    c.fillStyle = 'rgba(66, 99, 235, 0.12)';
    c.fillRect(x0, 0, Math.max(x1 - x0, 1), this.height);
    c.fillStyle = '#3b5bdb';
    c.fillRect(Math.round(x0) - 1, 0, 2, this.height);
    c.fillRect(Math.round(x1) - 1, 0, 2, this.height);
    c.restore();
  };

  Timeline.prototype.schedule = function () {
    var self = this;
    if (this.pending) return;
    this.pending = true;
    requestAnimationFrame(function () { self.pending = false; self.draw(); });
  };

  Timeline.prototype.zoom = function (x, factor) {
    var t = this.tOf(Math.max(x, this.lw)), span = this.data.span || 1;
    var range = Math.min(Math.max((this.t1 - this.t0) * factor, 100), span * 1.05);
    var ratio = (t - this.t0) / (this.t1 - this.t0);
    this.t0 = t - ratio * range;
    this.t1 = this.t0 + range;
    this.clamp();
    this.schedule();
  };

  Timeline.prototype.clamp = function () {
    var span = Math.max(this.data.span, 1), range = this.t1 - this.t0, slack = span * 0.025;
    if (this.t0 < -slack) { this.t0 = -slack; this.t1 = this.t0 + range; }
    if (this.t1 > span + slack) { this.t1 = span + slack; this.t0 = this.t1 - range; }
  };

  Timeline.prototype.reset = function () {
    this.t0 = 0;
    this.t1 = Math.max(this.data.span, 1);
    this.schedule();
  };

  /* The item under the mouse: the nearest one within 3 pixels. */
  Timeline.prototype.hit = function (x, y) {
    var tr = null;
    for (var i = 0; i < this.tracks.length; i++)
      if (y >= this.tracks[i].y && y < this.tracks[i].y + TRACK_H) tr = this.tracks[i];
    if (!tr || x < this.lw) return null;
    var s = this.scale(), t = this.tOf(x), tol = 3 / s, best = -1, bestD = Infinity;
    for (var j = firstVisible(tr, t - tol); j < tr.n; j++) {
      var o = j * ITEM, b = tr.items[o], e = b + tr.items[o + 1];
      if (b > t + tol) break;
      var d = t < b ? b - t : t > e ? t - e : 0;
      if (d <= tol && (d < bestD || (d === bestD && tr.items[o + 4] > 0))) { best = o; bestD = d; }
    }
    return best < 0 ? null : { track: tr, o: best };
  };

  Timeline.prototype.describe = function (h) {
    var it = h.track.items, o = h.o, d = this.data, kind = KIND_WORDS[d.kinds[it[o + 2]]] || d.kinds[it[o + 2]];
    var lines = [];
    if (it[o + 3] > 1) lines.push(it[o + 3].toLocaleString('en-US') + ' \u00d7 ' + kind + ' (grouped)');
    else lines.push(kind);
    lines.push(h.track.lane + ' \u00b7 ' + h.track.name);
    lines.push('at ' + fmtNs(it[o]) + ', ' + (it[o + 3] > 1 ? 'spanning ' : 'lasting ') + fmtNs(it[o + 1]));
    if (it[o + 6] > 0) lines.push(fmtBytes(it[o + 6]) + (it[o + 3] > 1 ? ' in total' : ''));
    if (it[o + 7] >= 0) lines.push((it[o + 3] > 1 ? 'longest from directive ' : 'directive ') + d.sites[it[o + 7]]);
    if (it[o + 4] > 0) {
      var listed = it[o + 5] >= 0 && it[o + 5] < d.findings.length;
      lines.push((it[o + 3] > 1 ? it[o + 4].toLocaleString('en-US') + ' wasteful: ' : 'wasteful: ') +
                 (listed ? d.findings[it[o + 5]] : 'a finding not listed on this page (see findings.json)'));
      if (listed) lines.push('click to open the finding');
    }
    return lines.join('\n');
  };

  Timeline.prototype.bind = function () {
    var self = this, drag = null, cv = this.canvas;
    cv.addEventListener('wheel', function (ev) {
      ev.preventDefault();
      var r = cv.getBoundingClientRect();
      self.zoom(ev.clientX - r.left, Math.exp(ev.deltaY * (ev.deltaMode === 1 ? 0.05 : 0.0018)));
    }, { passive: false });
    /* A drag on the time axis, or with Shift, selects; any other drag pans. */
    cv.addEventListener('mousedown', function (ev) {
      var r = cv.getBoundingClientRect(), x = ev.clientX - r.left, y = ev.clientY - r.top;
      var selecting = (y < AXIS_H || ev.shiftKey) && x >= self.lw;
      drag = { x: ev.clientX, t0: self.t0, t1: self.t1, moved: false, select: selecting ? self.tOf(x) : null };
      if (selecting) ev.preventDefault();
      cv.classList.add(selecting ? 'selecting' : 'dragging');
    });
    window.addEventListener('mouseup', function () {
      if (drag) cv.classList.remove('dragging', 'selecting');
      setTimeout(function () { drag = null; }, 0);
    });
    window.addEventListener('mousemove', function (ev) {
      if (!drag) return;
      var dx = ev.clientX - drag.x;
      if (Math.abs(dx) > 2) drag.moved = true;
      if (drag.select !== null) {
        if (drag.moved) self.select(drag.select, self.tOf(ev.clientX - cv.getBoundingClientRect().left));
        return;
      }
      var dt = dx / self.scale();
      self.t0 = drag.t0 - dt;
      self.t1 = drag.t1 - dt;
      self.clamp();
      self.schedule();
    });
    cv.addEventListener('mousemove', function (ev) {
      var r = cv.getBoundingClientRect(), x = ev.clientX - r.left, y = ev.clientY - r.top;
      var h = drag ? null : self.hit(x, y);
      if (!h) {
        self.tip.hidden = true;
        cv.style.cursor = !drag && y < AXIS_H && x >= self.lw ? 'col-resize' : '';
        return;
      }
      self.tip.textContent = self.describe(h);
      self.tip.hidden = false;
      var left = Math.min(x + 14, self.width - self.tip.offsetWidth - 6);
      self.tip.style.left = Math.max(left, 4) + 'px';
      self.tip.style.top = (y + 16) + 'px';
      cv.style.cursor = h.track.items[h.o + 4] > 0 ? 'pointer' : '';
    });
    cv.addEventListener('mouseleave', function () { self.tip.hidden = true; });
    cv.addEventListener('click', function (ev) {
      if (drag && (drag.moved || drag.select !== null)) return;
      var r = cv.getBoundingClientRect(), h = self.hit(ev.clientX - r.left, ev.clientY - r.top);
      var f = h ? h.track.items[h.o + 5] : -1;
      if (h && h.track.items[h.o + 4] > 0 && f >= 0 && f < self.data.targets.length)
        go(self.data.targets[f]);
    });
    cv.addEventListener('dblclick', function () { self.reset(); });
    window.addEventListener('resize', function () { self.resize(); });
  };

  /* ---- The panels under the timeline: selection and durations ---------------- */

  function cell(row, text, value) {
    var td = document.createElement(row.cells.length ? 'td' : 'th');
    if (!row.cells.length) td.scope = 'row';
    td.textContent = text;
    if (value !== undefined) {
      td.className = 'num';
      td.setAttribute('data-v', String(value));
    }
    row.appendChild(td);
    return td;
  }

  function fillRows(tbody, rows) {
    while (tbody.firstChild) tbody.removeChild(tbody.firstChild);
    rows.forEach(function (r) { tbody.appendChild(r); });
  }

  Timeline.prototype.attach = function (section) {
    var self = this;
    this.section = section;
    this.selPanel = section.querySelector('.timeline-selection');
    var colour = section.querySelector('select.timeline-colour');
    if (colour) colour.addEventListener('change', function () { self.colour(colour.value); });
    var view = section.querySelector('button.timeline-select-view');
    if (view) view.addEventListener('click', function () {
      self.select(Math.max(self.t0, 0), Math.min(self.t1, self.data.span));
      var clear = section.querySelector('button.timeline-clear');
      if (clear) clear.focus();
    });
    var clear = section.querySelector('button.timeline-clear');
    if (clear) clear.addEventListener('click', function () {
      self.clearSelection();
      if (view) view.focus();
    });
    section.addEventListener('keydown', function (ev) {
      if (ev.key === 'Escape' && self.sel) {
        self.clearSelection();
        if (view) view.focus();
      }
    });
    this.directiveLegend();
    this.histogramChoice();
  };

  Timeline.prototype.colour = function (by) {
    this.colourBy = by === 'directive' ? 'directive' : 'kind';
    var self = this;
    Array.prototype.forEach.call(this.section.querySelectorAll('.timeline-legend[data-colour]'), function (l) {
      l.hidden = l.getAttribute('data-colour') !== self.colourBy;
    });
    this.canvas.setAttribute('data-colour', this.colourBy);
    this.schedule();
  };

  /* The directives with a colour of their own, by time; the others share one. */
  Timeline.prototype.directiveLegend = function () {
    var legend = this.section.querySelector('.timeline-legend[data-colour="directive"]'), self = this;
    if (!legend) return;
    function item(colour, text) {
      var span = document.createElement('span'), key = document.createElement('span');
      span.className = 'legend-item';
      key.className = 'key';
      key.style.background = colour;
      span.appendChild(key);
      span.appendChild(document.createTextNode(text));
      legend.appendChild(span);
    }
    var coloured = 0;
    this.total.sites.forEach(function (s) {
      if (self.siteColour[s.site]) { item(self.siteColour[s.site], self.siteName(s.site)); coloured++; }
    });
    item(OTHER, coloured < this.total.sites.length ? 'other directives' : 'no known directive');
  };

  Timeline.prototype.select = function (a, b) {
    var t = performance.now();
    this.sel = this.snap(a, b);
    var st = this.stats(this.sel.from, this.sel.to);
    this.showSelection(st);
    this.schedule();
    if (this.selPanel) this.selPanel.setAttribute('data-ms', (performance.now() - t).toFixed(3));
  };

  Timeline.prototype.clearSelection = function () {
    this.sel = null;
    if (this.selPanel) {
      this.selPanel.querySelector('.selection-body').hidden = true;
      this.selPanel.querySelector('.selection-empty').hidden = false;
      this.selPanel.removeAttribute('data-from');
      this.selPanel.removeAttribute('data-to');
    }
    this.schedule();
  };

  Timeline.prototype.showSelection = function (st) {
    var p = this.selPanel, self = this;
    if (!p) return;
    p.setAttribute('data-from', String(st.from));
    p.setAttribute('data-to', String(st.to));
    p.querySelector('.selection-empty').hidden = true;
    p.querySelector('.selection-body').hidden = false;
    var ops = 0, constructs = 0, waits = 0;
    st.kinds.forEach(function (k) {
      if (DEVICE_KINDS[k.kind]) ops += k.n; else if (k.kind === 'host wait') waits += k.n; else constructs += k.n;
    });
    p.querySelector('.selection-range').textContent = 'From ' + fmtNs(st.from) + ' to ' + fmtNs(st.to) +
      ' (' + fmtNs(st.to - st.from) + '): ' + ops.toLocaleString('en-US') + ' operations, ' +
      constructs.toLocaleString('en-US') + ' constructs and ' + waits.toLocaleString('en-US') +
      ' host waits begin in it' +
      (this.merged ? '. Dense parts are grouped in steps of ' + fmtNs(this.data.quantum) +
                     ', so the interval is widened to whole steps.' : '.');
    fillRows(p.querySelector('.selection-kinds tbody'), st.kinds.map(function (k) {
      var tr = document.createElement('tr');
      tr.setAttribute('data-kind', k.kind);
      cell(tr, plural(k.kind));
      cell(tr, k.n.toLocaleString('en-US'), k.n);
      cell(tr, fmtNs(k.busy), k.busy);
      cell(tr, k.bytes ? fmtBytes(k.bytes) : '\u2014', k.bytes);
      return tr;
    }));
    fillRows(p.querySelector('.selection-directives tbody'), st.sites.slice(0, 10).map(function (d) {
      var tr = document.createElement('tr');
      tr.setAttribute('data-site', String(d.site));
      cell(tr, self.siteName(d.site));
      cell(tr, d.n.toLocaleString('en-US'), d.n);
      cell(tr, fmtNs(d.busy), d.busy);
      return tr;
    }));
  };

  /* The directive and kind whose durations the histogram shows. */
  Timeline.prototype.histogramChoice = function () {
    var siteSel = this.section.querySelector('select.histogram-site');
    var kindSel = this.section.querySelector('select.histogram-kind');
    var sets = (this.data.hist && this.data.hist.sets) || [], self = this, bySite = {};
    if (!siteSel || !kindSel) return;
    sets.forEach(function (h) { (bySite[h.site] || (bySite[h.site] = [])).push(h); });
    /* Directives by time first (those with device operations), then the others. */
    var order = this.total.sites.map(function (s) { return s.site; }).filter(function (s) { return bySite[s]; });
    Object.keys(bySite).forEach(function (k) { if (order.indexOf(Number(k)) < 0) order.push(Number(k)); });
    order.forEach(function (site) {
      var o = document.createElement('option');
      o.value = String(site);
      o.textContent = self.siteName(site);
      siteSel.appendChild(o);
    });
    function kinds() {
      while (kindSel.firstChild) kindSel.removeChild(kindSel.firstChild);
      (bySite[siteSel.value] || []).forEach(function (h) {
        var o = document.createElement('option');
        o.value = String(h.kind);
        o.textContent = plural(self.data.kinds[h.kind]);
        kindSel.appendChild(o);
      });
    }
    function show() {
      var list = bySite[siteSel.value] || [], h = null;
      list.forEach(function (x) { if (String(x.kind) === kindSel.value) h = x; });
      self.histogram(h);
    }
    siteSel.addEventListener('change', function () { kinds(); show(); });
    kindSel.addEventListener('change', show);
    kinds();
    show();
  };

  /* An edge of the 1, 2, 5 series in its unit, without decimals: "500 \u00b5s". */
  function fmtEdge(ns) {
    var units = [[1e9, 's'], [1e6, 'ms'], [1e3, '\u00b5s'], [1, 'ns']];
    for (var i = 0; i < units.length; i++)
      if (ns >= units[i][0]) return Number((ns / units[i][0]).toPrecision(3)) + ' ' + units[i][1];
    return '0 ns';
  }

  function binLabel(edges, b) {
    if (b === 0) return 'under 1 ns';
    if (b >= edges.length) return fmtEdge(edges[edges.length - 1]) + ' or more';
    return fmtEdge(edges[b - 1]) + ' to ' + fmtEdge(edges[b]);
  }

  Timeline.prototype.histogram = function (h) {
    var table = this.section.querySelector('table.histogram'), edges = this.data.hist ? this.data.hist.edges : [];
    if (!table) return;
    var total = h ? h.counts.reduce(function (a, b) { return a + b; }, 0) : 0;
    var most = h ? Math.max.apply(null, h.counts) : 0;
    table.caption.textContent = h ? total.toLocaleString('en-US') + ' ' + plural(this.data.kinds[h.kind]) + ' of ' +
      this.siteName(h.site) + ', by duration (each row a range of the 1, 2, 5 series)' : 'No operations';
    table.setAttribute('data-total', String(total));
    fillRows(table.tBodies[0], (h ? h.counts : []).map(function (n, i) {
      var tr = document.createElement('tr');
      cell(tr, binLabel(edges, h.first + i));
      var td = cell(tr, n.toLocaleString('en-US'), n);
      var bar = document.createElement('span');
      bar.className = 'bar';
      bar.setAttribute('aria-hidden', 'true');
      bar.style.width = (most ? Math.max(n / most * 100, n ? 1 : 0) : 0).toFixed(1) + '%';
      td.insertBefore(bar, td.firstChild);
      return tr;
    }));
  };

  /* Escape with the focus outside any timeline clears every selection. */
  var timelines = [];
  document.addEventListener('keydown', function (ev) {
    if (ev.key !== 'Escape' || (document.activeElement && document.activeElement !== document.body)) return;
    timelines.forEach(function (tl) { if (tl.sel) tl.clearSelection(); });
  });

  Array.prototype.forEach.call(document.querySelectorAll('.timeline[data-source]'), function (box) {
    var src = document.getElementById(box.getAttribute('data-source'));
    if (!src) return;
    var tl = new Timeline(box, JSON.parse(src.textContent));
    timelines.push(tl);
    var section = box.closest('section');
    if (section) tl.attach(section);
    var reset = document.querySelector('button.timeline-reset[data-timeline="' + box.getAttribute('data-source') + '"]');
    if (reset) reset.addEventListener('click', function () { tl.reset(); });
  });

  if (location.hash.length > 1) reveal(decodeURIComponent(location.hash.slice(1)));
})();
