// Browser test of omplens report.html in headless Chromium (playwright-core).
//   node report.test.js REPORT.html WORKDIR [BIG_REPORT.html]
// Run by run_browser_test.sh. Checks: no console errors and no network
// request; a click on a directive row opens its source view at the line;
// sorting and filtering of the directive table; the timeline canvas drew,
// zooms and shows details on hover; optionally that a report of a million
// events draws and redraws quickly. Saves screenshots into WORKDIR.
'use strict';
const fs = require('fs');
const path = require('path');
const { chromium } = require('playwright-core');

const [reportPath, workDir, bigReport] = process.argv.slice(2);
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

async function checkReport(context) {
  const page = await context.newPage();
  const problems = watch(page);
  await page.goto('file://' + path.resolve(reportPath));
  await page.waitForLoadState('load');
  check((await page.title()).includes('omplens'), 'page title names omplens', await page.title());

  // Summary
  const kpi = await page.locator('.kpi.hero .kpi-value').first().textContent();
  check(/\d/.test(kpi), 'summary shows the predicted savings', kpi);

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

  // Finding drill-down
  const finding = page.locator('details.finding').first();
  await finding.locator('summary').click();
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
    if (bigReport) await checkBigReport(context);
  } catch (e) {
    check(false, 'browser test ran to the end', e.stack || String(e));
  } finally {
    await context.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
  console.log('screenshots: ' + path.join(workDir, 'report.png') + ', report-source.png' + (bigReport ? ', report-big.png' : ''));
  console.log(passed + ' passed, ' + failed + ' failed');
  process.exit(failed ? 1 : 0);
})();
