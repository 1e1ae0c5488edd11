// Browser test of omplens report.html in headless Chromium (playwright-core).
//   node report.test.js REPORT.html WORKDIR FULL_REPORT.html [BIG_REPORT.html]
// Run by run_browser_test.sh. Checks: no console errors and no network
// request; no WCAG 2 A/AA violation that axe-core finds, at 1400, 800 and
// 390 px; at 800 and 390 px the savings stay in view and the navigation
// stays reachable; a click on a directive row opens its source view at the
// line; sorting and filtering of the directive table; the time table's
// "with findings" box; the timeline canvas
// drew, zooms and shows details on hover; in FULL_REPORT (rendered with the
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
