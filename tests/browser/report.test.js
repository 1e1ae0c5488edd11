// Browser test of omplens report.html in headless Chromium (playwright-core).
//   node report.test.js REPORT.html WORKDIR FULL_REPORT.html [BIG_REPORT.html]
// Run by run_browser_test.sh. Checks: no console errors and no network
// request; no WCAG 2 A/AA violation that axe-core finds, at 1400, 800 and
// 390 px; at 800 and 390 px the savings stay in view and the navigation
// stays reachable; a click on a directive row opens its source view at the
// line; sorting and filtering of the directive table; the time table's
// "with findings" box; the timeline canvas
// drew, zooms and shows details on hover, each host thread's waits equal
// timeline.json's and findings.json's and are drawn; in FULL_REPORT (rendered with the
// analysis) a loop's waste is marked over the whole run; optionally that a
// report of a million events draws and redraws quickly. Saves screenshots
// into WORKDIR.
'use strict';
const fs = require('fs');
const path = require('path');
const { chromium } = require('playwright-core');

const [reportPath, workDir, fullReport, bigReport] = process.argv.slice(2);
const executablePath = process.env.OMPLENS_CHROMIUM || '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
              '--disable-background-networking', '--disable-component-update', '--disable-sync'];

let passed = 0, failed = 0;
function check(ok, what, detail) {
  if (ok) {
    passed++;
    console.log('ok   ' + what + (detail !== undefined && detail !== '' ? ' (' + detail + ')' : ''));
  } else {
    failed++;
    console.log('FAIL ' + what + (detail !== undefined ? ': ' + detail : ''));
  }
}

// Records console errors, page errors and any request that leaves the file.
function watch(page) {
  const problems = [];
  page.on('console', (m) => { if (m.type() === 'error') problems.push('console: ' + m.text()); });
  page.on('pageerror', (e) => problems.push('page error: ' + e.message));
  page.on('request', (r) => {
    if (!/^(file|data|about):/.test(r.url())) problems.push('network request: ' + r.url());
  });
  return problems;
}

// Non-background pixels in the plotting area of the first timeline canvas.
async function drawnPixels(page) {
  return page.evaluate(() => {
    const c = document.querySelector('.timeline canvas');
    const ctx = c.getContext('2d');
    const x0 = Math.floor(c.width * 0.2), y0 = Math.floor(c.height * 0.35);
    const data = ctx.getImageData(x0, y0, c.width - x0, c.height - y0).data;
    let n = 0;
    for (let i = 0; i < data.length; i += 4) {
      const [r, g, b, a] = [data[i], data[i + 1], data[i + 2], data[i + 3]];
      if (a > 0 && (Math.abs(r - g) > 24 || Math.abs(g - b) > 24 || r < 200)) n++;
    }
    return n;
  });
}

// WCAG 2 A and AA violations that axe-core finds, with every part of the
// page open (findings, sources, identifiers).
async function axeViolations(page) {
  await page.evaluate(() => document.querySelectorAll('details').forEach((d) => { d.open = true; }));
  if (!await page.evaluate(() => typeof window.axe === 'object'))
    await page.addScriptTag({ path: require.resolve('axe-core/axe.min.js') });
  const result = await page.evaluate(() => window.axe.run(document, {
    runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa'] },
  }));
  return result.violations.map((v) => v.id + ' (' + v.impact + ', ' + v.nodes.length + '): ' +
    v.nodes.slice(0, 3).map((n) => n.target.join(' ') + ': ' + n.failureSummary.replace(/\s+/g, ' ')).join(' | '));
}

// Where the key parts of the page are, in the window's coordinates.
async function layout(page) {
  return page.evaluate(() => {
    function box(el) {
      if (!el) return null;
      el.scrollIntoView({ block: 'center', inline: 'nearest' });
      const r = el.getBoundingClientRect();
      return { left: r.left, right: r.right, width: r.width, visible: r.width > 0 && r.height > 0 };
    }
    const links = Array.prototype.map.call(document.querySelectorAll('.nav a'), (a) => {
      const r = a.getBoundingClientRect();
      return { text: a.textContent, left: r.left, right: r.right, top: r.top, bottom: r.bottom };
    });
    window.scrollTo(0, 0);
    return {
      width: window.innerWidth,
      pageWidth: document.documentElement.scrollWidth,
      directiveSavings: box(document.querySelector('tr.directive-row td.savings')),
      findingSavings: box(document.querySelector('details.finding .finding-metrics b')),
      navLinks: links,
    };
  });
}

function inView(b, width) { return !!b && b.visible && b.left >= 0 && b.right <= width + 0.5; }

// The page at a laptop's and a phone's width: nothing key behind a
// sideways scroll, the navigation on screen, no axe violation.
async function checkNarrow(context, width) {
  const page = await context.newPage();
  await page.setViewportSize({ width, height: 900 });
  await page.goto('file://' + path.resolve(reportPath));
  await page.waitForLoadState('load');
  const l = await layout(page);
  check(l.pageWidth <= l.width, width + ' px: the page is no wider than the window', l.pageWidth + ' px');
  check(inView(l.directiveSavings, width), width + ' px: the first directive\'s savings are in view',
        JSON.stringify(l.directiveSavings));
  check(inView(l.findingSavings, width), width + ' px: the first finding\'s savings are in view',
        JSON.stringify(l.findingSavings));
  const offscreen = l.navLinks.filter((a) => a.left < 0 || a.right > width + 0.5 || a.bottom <= 0 || a.top < 0);
  check(l.navLinks.length >= 3 && offscreen.length === 0, width + ' px: every navigation link is on screen',
        l.navLinks.map((a) => a.text + '@' + Math.round(a.left) + '-' + Math.round(a.right)).join(' '));
  await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight * 0.4));
  const nav = await page.locator('.nav a').last().boundingBox();
  check(nav !== null && nav.y >= 0 && nav.y < 120, width + ' px: the navigation stays at the top when scrolled',
        nav && Math.round(nav.y) + ' px');
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: path.join(workDir, 'report-' + width + '.png'), fullPage: true });
  const violations = await axeViolations(page);
  check(violations.length === 0, width + ' px: axe-core finds no WCAG 2 AA violation', violations.join('; '));
  await page.close();
}

// Red mark pixels of the first timeline in [from, to) of its width.
async function markPixels(page, from, to) {
  return page.evaluate(([a, b]) => {
    const c = document.querySelector('.timeline canvas');
    const x0 = Math.floor(c.width * a), x1 = Math.floor(c.width * b);
    const data = c.getContext('2d').getImageData(x0, 0, x1 - x0, c.height).data;
    let n = 0;
    for (let i = 0; i < data.length; i += 4)
      if (data[i] > 190 && data[i + 1] < 90 && data[i + 2] < 90 && data[i + 3] > 200) n++;
    return n;
  }, [from, to]);
}

// A loop's waste is marked over the whole run, not only at its start.
async function checkMarks(context) {
  const page = await context.newPage();
  const problems = watch(page);
  await page.goto('file://' + path.resolve(fullReport));
  await page.waitForFunction(() => Number(document.querySelector('.timeline canvas').getAttribute('data-drawn')) > 0);
  const counts = await page.evaluate(() => Array.prototype.map.call(
    document.querySelectorAll('details.finding .finding-metrics'), (m) => parseInt(m.textContent.replace(/,/g, ''), 10)));
  check(Math.max.apply(null, counts) >= 100, 'a finding has 100 or more instances', counts.join(', '));
  const early = await markPixels(page, 0.1, 0.3), late = await markPixels(page, 0.8, 1);
  check(early > 0 && late > 0, 'wasteful operations are marked at the start and in the last fifth of the run',
        early + ' and ' + late + ' mark pixels');
  const hint = await page.locator('.timeline').first().locator('xpath=..').locator('.hint').textContent();
  check(!/Only the first/.test(hint), 'the timeline marks every instance', hint);
  await page.locator('.timeline canvas').first().screenshot({ path: path.join(workDir, 'report-marks.png') });
  check(problems.length === 0, 'full report: no console errors', problems.join('; '));
  await page.close();
}


// The interval statistics of a timeline, computed here from the JSON the
// page embeds, the same way the page defines them: what begins in
// [from, to), per kind and, for device operations, per directive.
function statsFromJson(id, from, to) {
  return (([id, from, to]) => {
    const d = JSON.parse(document.getElementById(id).textContent);
    const kinds = {}, sites = {}, device = ['kernel', 'h2d', 'd2h', 'd2d', 'alloc', 'delete'];
    let merged = false;
    for (const lane of d.lanes) for (const t of lane.tracks) {
      merged = merged || t.merged;
      for (let i = 0; i * 8 < t.items.length; i++) {
        const it = t.items.slice(i * 8, i * 8 + 8), busy = t.busy ? t.busy[i] : it[1];
        if (it[0] < from || it[0] >= to) continue;
        const name = d.kinds[it[2]], k = kinds[name] || (kinds[name] = { n: 0, busy: 0, bytes: 0 });
        k.n += it[3]; k.busy += busy; k.bytes += it[6];
        if (!d.directive_cells && device.includes(name)) {
          const s = sites[it[7]] || (sites[it[7]] = { n: 0, busy: 0 });
          s.n += it[3]; s.busy += busy;
        }
      }
    }
    const cells = d.directive_cells || [];
    for (let j = 0; j < cells.length; j += 4) {
      const t = cells[j] * d.quantum;
      if (t < from || t >= to) continue;
      const s = sites[cells[j + 1]] || (sites[cells[j + 1]] = { n: 0, busy: 0 });
      s.n += cells[j + 2]; s.busy += cells[j + 3];
    }
    return { kinds, sites, merged, quantum: d.quantum, hist: d.hist, kindNames: d.kinds };
  }).toString();
}

// What the selection panel of the first timeline shows, as numbers.
async function panelStats(page) {
  return page.evaluate(() => {
    const p = document.querySelector('.timeline-selection');
    const num = (td) => Number(td.getAttribute('data-v'));
    const kinds = {}, sites = [];
    p.querySelectorAll('.selection-kinds tbody tr').forEach((tr) => {
      kinds[tr.getAttribute('data-kind')] = { n: num(tr.cells[1]), busy: num(tr.cells[2]), bytes: num(tr.cells[3]) };
    });
    p.querySelectorAll('.selection-directives tbody tr').forEach((tr) => {
      sites.push({ site: Number(tr.getAttribute('data-site')), n: num(tr.cells[1]), busy: num(tr.cells[2]) });
    });
    return { from: Number(p.getAttribute('data-from')), to: Number(p.getAttribute('data-to')),
             ms: Number(p.getAttribute('data-ms')), kinds, sites,
             shown: !p.querySelector('.selection-body').hidden };
  });
}

// The panel agrees exactly with the JSON: every kind, and the top directives
// in order of time.
async function checkSelectionAgainstJson(page, label) {
  const shown = await panelStats(page);
  const id = await page.evaluate(() => document.querySelector('.timeline[data-source]').getAttribute('data-source'));
  const json = await page.evaluate('(' + statsFromJson() + ')(' + JSON.stringify([id, shown.from, shown.to]) + ')');
  const kindNames = Object.keys(json.kinds).sort(), shownNames = Object.keys(shown.kinds).sort();
  const kindsAgree = kindNames.join() === shownNames.join() && kindNames.every((k) =>
    json.kinds[k].n === shown.kinds[k].n && json.kinds[k].busy === shown.kinds[k].busy &&
    json.kinds[k].bytes === shown.kinds[k].bytes);
  check(kindNames.length > 0 && kindsAgree, label + ': operations, time and bytes per kind equal the JSON\'s',
        JSON.stringify(shown.kinds) + ' against ' + JSON.stringify(json.kinds));
  const top = Object.keys(json.sites).map((s) => ({ site: Number(s), n: json.sites[s].n, busy: json.sites[s].busy }))
    .sort((x, y) => y.busy - x.busy || y.n - x.n || x.site - y.site).slice(0, 10);
  check(top.length > 0 && JSON.stringify(top) === JSON.stringify(shown.sites),
        label + ': the top directives and their time equal the JSON\'s',
        JSON.stringify(shown.sites.slice(0, 3)) + ' against ' + JSON.stringify(top.slice(0, 3)));
  if (json.merged)
    check(shown.from % json.quantum === 0 && shown.to % json.quantum === 0,
          label + ': with grouped operations the interval is widened to whole groups', shown.from + '-' + shown.to);
  return { shown, json };
}

// Drags along the time axis of the first timeline from fraction a to b of its plot.
async function dragAxis(page, a, b, steps) {
  const canvas = page.locator('.timeline canvas').first();
  await canvas.scrollIntoViewIfNeeded();
  const box = await canvas.boundingBox();
  const lw = box.width < 560 ? 120 : 170, plot = box.width - lw - 6;
  await page.mouse.move(box.x + lw + plot * a, box.y + 12);
  await page.mouse.down();
  await page.mouse.move(box.x + lw + plot * b, box.y + 12, { steps: steps || 8 });
  await page.mouse.up();
}

// The page's timeline data holds the operations timeline.json (written by
// `omplens run` beside the page) holds: per kind, the same count, summed
// durations and bytes (operations on the host device aside, which the page
// does not draw).
async function checkAgainstTimelineJson(page, file) {
  const names = { kernel: 'kernel', H2D: 'h2d', D2H: 'd2h', D2D: 'd2d', alloc: 'alloc', delete: 'delete' };
  const want = {};
  for (const e of JSON.parse(fs.readFileSync(file, 'utf8')).traceEvents) {
    if (e.ph !== 'X' || e.pid % 100000 === 1) continue;
    const cat = e.cat.split(',')[0];
    const kind = cat === 'region' ? e.name : cat === 'wait' ? 'host wait' : names[e.name.split(' ')[0]];
    if (!kind || (cat !== 'region' && cat !== 'wait' && !(e.name.split(' ')[0] in names))) continue;
    const k = want[kind] || (want[kind] = { n: 0, busy: 0, bytes: 0 });
    k.n++;
    k.busy += Math.round(e.dur * 1000);
    k.bytes += cat === 'transfer' || cat === 'alloc' ? Number(e.args.bytes || 0) : 0;
  }
  const id = await page.evaluate(() => document.querySelector('.timeline[data-source]').getAttribute('data-source'));
  const got = (await page.evaluate('(' + statsFromJson() + ')(' + JSON.stringify([id, -1e300, 1e300]) + ')')).kinds;
  check(Object.keys(want).length > 0 && JSON.stringify(Object.keys(want).sort().map((k) => [k, want[k]])) ===
        JSON.stringify(Object.keys(got).sort().map((k) => [k, got[k]])),
        'the page\'s timeline data has the operations of timeline.json, with their durations and bytes',
        JSON.stringify(got) + ' against ' + JSON.stringify(want));
}

// Host waits: each host thread's waits track in the page holds the waits
// of timeline.json's "thread N waits" lanes (count and summed durations,
// to the nanosecond), which add up to findings.json's host_waits_by_thread
// and totals; the legend names them, and the rows of the waits tracks are
// drawn in their colour.
async function checkWaits(page, dir) {
  const tl = JSON.parse(fs.readFileSync(path.join(dir, 'timeline.json'), 'utf8')).traceEvents;
  const doc = JSON.parse(fs.readFileSync(path.join(dir, 'findings.json'), 'utf8')).processes[0];
  const names = {}, fromTimeline = {};
  for (const e of tl)
    if (e.ph === 'M' && e.name === 'thread_name' && / waits$/.test(e.args.name)) names[e.tid] = e.args.name;
  for (const e of tl) {
    if (e.ph !== 'X' || !/^wait/.test(e.cat)) continue;
    const thread = names[e.tid] ? names[e.tid].split(' ')[1] : '?';
    const w = fromTimeline[thread] || (fromTimeline[thread] = { n: 0, ns: 0 });
    w.n++;
    w.ns += Math.round(e.dur * 1000);
  }
  const fromDoc = {};
  for (const t of doc.totals.host_waits_by_thread) fromDoc[t.thread] = { n: t.waits, ns: t.wait_ns };
  const id = await page.evaluate(() => document.querySelector('.timeline[data-source]').getAttribute('data-source'));
  const fromPage = await page.evaluate((id) => {
    const d = JSON.parse(document.getElementById(id).textContent), out = {};
    for (const lane of d.lanes) for (const t of lane.tracks) {
      if (t.name !== 'waits') continue;
      const w = out[lane.name.replace('Host thread ', '')] = { n: 0, ns: 0 };
      for (let i = 0; i * 8 < t.items.length; i++) {
        w.n += t.items[i * 8 + 3];
        w.ns += t.busy ? t.busy[i] : t.items[i * 8 + 1];
        if (d.kinds[t.items[i * 8 + 2]] !== 'host wait') w.n = NaN;
      }
    }
    return out;
  }, id);
  const key = (o) => JSON.stringify(Object.keys(o).sort().map((k) => [k, o[k]]));
  const total = Object.values(fromPage).reduce((s, w) => ({ n: s.n + w.n, ns: s.ns + w.ns }), { n: 0, ns: 0 });
  check(Object.keys(fromPage).length > 0 && key(fromPage) === key(fromTimeline) && key(fromPage) === key(fromDoc) &&
        total.n === doc.totals.host_waits && total.ns === doc.totals.host_wait_ns,
        'each host thread\'s waits in the page equal timeline.json\'s waits lanes and findings.json\'s host waits',
        key(fromPage) + ' against ' + key(fromTimeline) + ' and ' + key(fromDoc));
  check(await page.locator('.timeline-legend[data-colour="kind"] .key.k-wait').count() === 1,
        'the legend names the host waits');
  const drawn = await page.evaluate((id) => {
    const d = JSON.parse(document.getElementById(id).textContent);
    const c = document.querySelector('.timeline canvas'), dpr = c.width / c.getBoundingClientRect().width;
    const want = getComputedStyle(document.documentElement).getPropertyValue('--k-wait').trim();
    const rgb = [1, 3, 5].map((i) => parseInt(want.slice(i, i + 2), 16));
    let y = 26 + 6, n = 0; /* AXIS_H + PAD; TRACK_H 20, LANE_GAP 8 (report.js) */
    for (const lane of d.lanes) {
      for (const t of lane.tracks) {
        if (t.name === 'waits') {
          const px = c.getContext('2d').getImageData(0, Math.round(y * dpr), c.width, Math.round(20 * dpr)).data;
          for (let i = 0; i < px.length; i += 4)
            if (Math.abs(px[i] - rgb[0]) < 3 && Math.abs(px[i + 1] - rgb[1]) < 3 && Math.abs(px[i + 2] - rgb[2]) < 3) n++;
        }
        y += 20;
      }
      y += 8;
    }
    return n;
  }, id);
  check(drawn > 0, 'the waits tracks are drawn in the host wait colour', drawn + ' pixels');
}

// Selection, colouring and the histogram of the first timeline.
async function checkAnalysis(page, label) {
  await dragAxis(page, 0.2, 0.7);
  const sel = await checkSelectionAgainstJson(page, label);
  check(sel.shown.shown, label + ': dragging along the time axis selects an interval',
        sel.shown.from + ' to ' + sel.shown.to + ' ns');
  // Cleared by keyboard: Escape with the focus on the panel's button.
  await page.locator('button.timeline-clear').first().focus();
  await page.keyboard.press('Escape');
  check(!(await panelStats(page)).shown, label + ': Escape clears the selection');
  // Selected and cleared by keyboard alone.
  await page.locator('button.timeline-select-view').first().focus();
  await page.keyboard.press('Enter');
  const all = await checkSelectionAgainstJson(page, label + ', the visible range');
  check(all.shown.shown && await page.evaluate(() => document.activeElement.classList.contains('timeline-clear')),
        label + ': "select the visible range" selects by keyboard and moves the focus to "Clear selection"');
  await page.keyboard.press('Enter');
  check(!(await panelStats(page)).shown, label + ': "Clear selection" clears it by keyboard');
  // Colour by directive and back.
  const colour = page.locator('select.timeline-colour').first();
  check(await page.evaluate(() => getComputedStyle(document.querySelector('.timeline-legend[data-colour="directive"]')).display) === 'none',
        label + ': the legend of directives is hidden while colouring by kind');
  const before = Number(await page.locator('.timeline canvas').first().getAttribute('data-drawn'));
  await colour.selectOption('directive');
  await page.waitForFunction((n) => Number(document.querySelector('.timeline canvas').getAttribute('data-drawn')) > n,
                             before, { timeout: 5000 }).catch(() => {});
  const legend = await page.evaluate(() => {
    const l = document.querySelector('.timeline-legend[data-colour="directive"]');
    const k = document.querySelector('.timeline-legend[data-colour="kind"]');
    const shown = (el) => getComputedStyle(el).display !== 'none' && el.getBoundingClientRect().height > 0;
    return { shown: shown(l), kindHidden: !shown(k), items: l.querySelectorAll('.legend-item').length,
             colour: document.querySelector('.timeline canvas').getAttribute('data-colour') };
  });
  check(legend.shown && legend.kindHidden && legend.items >= 2 && legend.colour === 'directive',
        label + ': colouring by directive redraws with a legend of directives', JSON.stringify(legend));
  await page.locator('.timeline canvas').first().screenshot({ path: path.join(workDir, label.replace(/\W+/g, '-') + '-directives.png') });
  await colour.selectOption('kind');
  check(await page.evaluate(() => ['kind', 'directive'].map((c) =>
          getComputedStyle(document.querySelector('.timeline-legend[data-colour="' + c + '"]')).display).join()) ===
        'flex,none', label + ': and back to colouring by kind, with the legend of kinds alone');
  // Histogram of one directive's operations: its total is that directive's count of that kind.
  const hist = await page.evaluate(() => {
    const site = document.querySelector('select.histogram-site'), kind = document.querySelector('select.histogram-kind');
    const t = document.querySelector('table.histogram');
    return { site: Number(site.value), kind: Number(kind.value), sites: site.options.length,
             total: Number(t.getAttribute('data-total')), rows: t.tBodies[0].rows.length,
             counted: Array.prototype.reduce.call(t.tBodies[0].rows, (n, r) => n + Number(r.cells[1].getAttribute('data-v')), 0) };
  });
  const id = await page.evaluate(() => document.querySelector('.timeline[data-source]').getAttribute('data-source'));
  // Without grouped tracks: that directive's items of that kind; with them,
  // the directive's device operations of every kind, against its cells.
  const expect = await page.evaluate(([id, site, kind]) => {
    const d = JSON.parse(document.getElementById(id).textContent);
    const device = ['kernel', 'h2d', 'd2h', 'd2d', 'alloc', 'delete'];
    if (d.directive_cells && device.includes(d.kinds[kind])) {
      let cells = 0, hists = 0;
      for (let j = 0; j < d.directive_cells.length; j += 4)
        if (d.directive_cells[j + 1] === site) cells += d.directive_cells[j + 2];
      for (const h of d.hist.sets)
        if (h.site === site && device.includes(d.kinds[h.kind])) hists += h.counts.reduce((x, y) => x + y, 0);
      return { merged: true, cells, hists };
    }
    let n = 0;
    for (const lane of d.lanes) for (const t of lane.tracks)
      for (let i = 0; !t.merged && i < t.items.length; i += 8)
        if (t.items[i + 2] === kind && t.items[i + 7] === site) n += t.items[i + 3];
    return { merged: false, n };
  }, [id, hist.site, hist.kind]);
  const agrees = expect.merged ? expect.cells === expect.hists : expect.n === hist.total;
  check(hist.sites > 0 && hist.rows > 0 && hist.total === hist.counted && agrees,
        label + ': the histogram of a directive\'s operations counts each of them once',
        JSON.stringify(hist) + ', JSON: ' + JSON.stringify(expect));
  return sel;
}

async function checkReport(context) {
  const page = await context.newPage();
  const problems = watch(page);
  await page.goto('file://' + path.resolve(reportPath));
  await page.waitForLoadState('load');
  check((await page.title()).includes('omplens'), 'page title names omplens', await page.title());

  // Summary
  const kpi = await page.locator('.kpi.hero .kpi-value').first().textContent();
  check(/\d/.test(kpi), 'summary shows the predicted savings', kpi);

  // Plain words: with every finding opened (its identifiers toggle left
  // closed), the text a reader sees has no internal jargon, content hashes
  // or raw event numbers.
  await page.evaluate(() => document.querySelectorAll('details.finding').forEach((d) => { d.open = true; }));
  const seen = await page.evaluate(() => document.body.innerText);
  const jargon = [/\bnearest\b/i, /which the source shows for the names used/,
                  /\b0x[0-9a-f]{16}\b/, /\b(h2d|d2h) #\d+/];
  const found = jargon.filter((re) => re.test(seen)).map(String);
  check(found.length === 0, 'no jargon, hash or event number in the text a reader sees', found.join(' '));
  await page.evaluate(() => document.querySelectorAll('details.finding').forEach((d) => { d.open = false; }));

  // Directive row -> source view, opened at the directive's line.
  await page.evaluate(() => document.querySelectorAll('details.source').forEach((d) => { d.open = false; }));
  const row = page.locator('tr.directive-row').first();
  const target = await row.getAttribute('data-target');
  check(/-s\d+-L\d+$/.test(target || ''), 'first directive row leads to a source line', target);
  await row.click();
  const line = page.locator('[id="' + target + '"]');
  await line.waitFor({ state: 'visible', timeout: 5000 }).catch(() => {});
  check(await line.isVisible(), 'clicking the directive row shows its source line');
  const opened = await page.evaluate((id) => {
    const el = document.getElementById(id);
    const d = el && el.closest('details.source');
    return !!(d && d.open && el.classList.contains('marked') && el.querySelector('.badges'));
  }, target);
  check(opened, 'its source view is open and the line has a badge');
  const highlighted = await page.locator('.source .tx .omp').count();
  check(highlighted > 0, 'the OpenMP pragma is highlighted', highlighted);

  // Sorting and filtering
  const header = page.locator('table.directives th').nth(1);
  await header.click();
  check(await header.getAttribute('aria-sort') !== null, 'clicking a header sorts the table');
  const filter = page.locator('input.filter').first();
  await filter.fill('no-such-directive-zzz');
  const visibleRows = await page.locator('tr.directive-row:visible').count();
  check(visibleRows === 0 && await page.locator('.filter-empty').first().isVisible(),
        'the filter hides rows that do not match', visibleRows);
  await filter.fill('');
  check(await page.locator('tr.directive-row:visible').count() > 0, 'clearing the filter shows the rows again');

  // Where the time goes: every directive; "with findings" keeps those with findings.
  const profiled = await page.locator('tr.profile-row').count();
  check(profiled > 0, 'the time table lists the directives', profiled);
  const withFindings = await page.locator('tr.profile-row[data-findings="1"]').count();
  const only = page.locator('input.only-findings').first();
  await only.check();
  check(await page.locator('tr.profile-row:visible').count() === withFindings,
        '"with findings" shows only the directives with findings', withFindings + ' of ' + profiled);
  await only.uncheck();
  check(await page.locator('tr.profile-row:visible').count() === profiled, 'unticking it shows them all again');

  // Finding drill-down
  const finding = page.locator('details.finding').first();
  await finding.locator(':scope > summary').click();
  check(await finding.locator('table.instances tbody tr').count() > 0, 'a finding opens to its instances');

  // Timeline: drew, zooms, hover details.
  const canvas = page.locator('.timeline canvas').first();
  await canvas.scrollIntoViewIfNeeded();
  const pixels = await drawnPixels(page);
  check(pixels > 500, 'the timeline canvas drew', pixels + ' coloured pixels');
  const before = Number(await canvas.getAttribute('data-drawn'));
  const box = await canvas.boundingBox();
  await page.mouse.move(box.x + box.width * 0.6, box.y + box.height * 0.6);
  await page.mouse.wheel(0, -400);
  await page.waitForFunction((n) => Number(document.querySelector('.timeline canvas').getAttribute('data-drawn')) > n,
                             before, { timeout: 5000 }).catch(() => {});
  check(Number(await canvas.getAttribute('data-drawn')) > before, 'wheel zooms the timeline (redrawn)');
  await page.locator('button.timeline-reset').first().click();
  let tip = false;
  for (let y = 0.35; y < 1 && !tip; y += 0.08)
    for (let x = 0.25; x < 1 && !tip; x += 0.05) {
      await page.mouse.move(box.x + box.width * x, box.y + box.height * y);
      tip = await page.locator('.timeline-tip').first().isVisible();
    }
  check(tip, 'hovering the timeline shows details');

  await page.mouse.move(0, 0);
  await checkAgainstTimelineJson(page, path.join(path.dirname(reportPath), 'timeline.json'));
  await checkWaits(page, path.dirname(reportPath));
  await checkAnalysis(page, 'timeline');
  // Leave a selection for the screenshot and for axe.
  await dragAxis(page, 0.1, 0.5);
  await page.locator('select.histogram-site').first().scrollIntoViewIfNeeded();
  await page.locator('.timeline-panels').first().screenshot({ path: path.join(workDir, 'report-selection.png') });
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: path.join(workDir, 'report.png'), fullPage: true });
  await page.locator('[id="' + target + '"]').scrollIntoViewIfNeeded();
  await page.screenshot({ path: path.join(workDir, 'report-source.png') });
  const violations = await axeViolations(page);
  check(violations.length === 0, 'axe-core finds no WCAG 2 AA violation', violations.join('; '));
  check(problems.length === 0, 'no console errors and no network requests', problems.join('; '));
  await page.close();
}

async function checkBigReport(context) {
  const page = await context.newPage();
  const problems = watch(page);
  const t0 = Date.now();
  await page.goto('file://' + path.resolve(bigReport));
  await page.waitForFunction(() => {
    const c = document.querySelector('.timeline canvas');
    return c && Number(c.getAttribute('data-drawn')) > 0;
  }, null, { timeout: 30000 });
  const loaded = Date.now() - t0;
  check(loaded < 10000, 'a million-event report loads and draws in < 10 s', loaded + ' ms');
  const canvas = page.locator('.timeline canvas').first();
  await canvas.scrollIntoViewIfNeeded();
  const box = await canvas.boundingBox();
  // Time of one full redraw, measured in the page.
  const redraw = await page.evaluate(() => {
    const c = document.querySelector('.timeline canvas');
    const ev = { clientX: c.getBoundingClientRect().left + c.clientWidth / 2,
                 clientY: c.getBoundingClientRect().top + 40, deltaY: -120, bubbles: true, cancelable: true };
    const times = [];
    return new Promise((resolve) => {
      let n = 0;
      function step() {
        const t = performance.now();
        c.dispatchEvent(new WheelEvent('wheel', ev));
        requestAnimationFrame(() => {
          times.push(performance.now() - t);
          if (++n < 10) step(); else resolve(Math.max.apply(null, times));
        });
      }
      step();
    });
  });
  check(redraw < 250, 'zooming a million-event timeline redraws in < 250 ms', redraw.toFixed(1) + ' ms (slowest of 10)');
  await page.locator('button.timeline-reset').first().click();
  await checkAnalysis(page, 'million events');
  // Time of one selection update (statistics and panel), measured in the
  // page, over 40 steps of a drag along the axis.
  const lw = box.width < 560 ? 120 : 170, plot = box.width - lw - 6, times = [];
  await page.mouse.move(box.x + lw + plot * 0.05, box.y + 12);
  await page.mouse.down();
  for (let i = 1; i <= 40; i++) {
    await page.mouse.move(box.x + lw + plot * (0.05 + 0.9 * i / 40), box.y + 12);
    times.push((await panelStats(page)).ms);
  }
  await page.mouse.up();
  times.sort((a, b) => a - b);
  // A figure for docs/performance.md, not a timed check.
  check(times.every((t) => t >= 0), 'a million events: every step of the drag updated the selection');
  console.log('measured: a selection update of the million-event timeline takes ' + times[20].toFixed(2) +
              ' ms (median), ' + times[times.length - 1].toFixed(2) + ' ms (slowest of 40 steps of a drag)');
  await checkSelectionAgainstJson(page, 'million events, after the drag');
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.screenshot({ path: path.join(workDir, 'report-big.png') });
  check(problems.length === 0, 'big report: no console errors', problems.join('; '));
  await page.close();
}

(async () => {
  const profile = fs.mkdtempSync(path.join(workDir, 'chromium-profile-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath, headless: true, args: ARGS, viewport: { width: 1400, height: 1000 },
  });
  try {
    await checkReport(context);
    await checkNarrow(context, 800);
    await checkNarrow(context, 390);
    await checkMarks(context);
    if (bigReport) await checkBigReport(context);
  } catch (e) {
    check(false, 'browser test ran to the end', e.stack || String(e));
  } finally {
    await context.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
  console.log('screenshots: ' + path.join(workDir, 'report.png') + ', report-source.png, report-800.png, ' +
              'report-390.png, report-marks.png' + (bigReport ? ', report-big.png' : ''));
  console.log(passed + ' passed, ' + failed + ' failed');
  process.exit(failed ? 1 : 0);
})();
