// Browser test of ikfix's HTML report (CTest label `browser`), driving Debian's chromium with
// puppeteer-core (pinned in tests/browser/package.json; `npm ci` there, .ci/setup does it).
//
//   node report_page_test.mjs clip  IKFIX FK_DUMP CLIP TERRAIN WORKDIR
//     ikfix run CLIP --html: no console error, no failed request, canvas not blank, and at the
//     report's worst frame the viewer's joints equal (<= 1e-4 m) the written clip read back by
//     ikfix (FK_DUMP). Also opens the `check --html` page of the same clip.
//   node report_page_test.mjs index IKFIX FK_DUMP TERRAIN WORKDIR CLIP...
//     ikfix batch --html-dir: the index lists every clip; clicking one opens its page.
// Screenshots go to WORKDIR. Exit 0 pass, 1 fail, 77 skip (no chromium or puppeteer-core).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const SKIP = 77;
const here = dirname(fileURLToPath(import.meta.url));
const chromium = process.env.IKFIX_CHROMIUM || '/usr/bin/chromium';

async function loadPuppeteer() {
  try {
    return (await import('puppeteer-core')).default;
  } catch (e) {
    console.log(`SKIP: puppeteer-core is not installed (cd ${here} && npm ci): ${e.message}`);
    process.exit(SKIP);
  }
}

function fail(message) {
  console.error('FAIL: ' + message);
  process.exit(1);
}

function run(binary, args) {
  console.log('$ ' + [binary, ...args].join(' '));
  return execFileSync(binary, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
}

// Opens `url` and records every console error, page error and failed request.
async function openPage(browser, url) {
  const page = await browser.newPage();
  await page.setViewport({ width: 1400, height: 1000 });
  const problems = [];
  page.on('console', (m) => { if (m.type() === 'error') problems.push('console error: ' + m.text()); });
  page.on('pageerror', (e) => problems.push('page error: ' + e.message));
  page.on('requestfailed', (r) => problems.push('failed request: ' + r.url()));
  page.on('response', (r) => { if (r.status() >= 400) problems.push(`HTTP ${r.status()}: ${r.url()}`); });
  const started = Date.now();
  await page.goto(url, { waitUntil: 'load' });
  return { page, problems, started };
}

async function waitForViewer(opened) {
  await opened.page.waitForFunction(() => window.ikfixViewer !== undefined, { timeout: 20000 });
  return opened.page.evaluate(() => window.ikfixViewer.firstFrameMs);
}

// Variance of the canvas's grey levels (0 for a blank canvas).
async function canvasVariance(page) {
  return page.evaluate(() => {
    const source = document.querySelector('canvas.viewport');
    const c = document.createElement('canvas');
    c.width = source.width; c.height = source.height;
    const g = c.getContext('2d');
    g.drawImage(source, 0, 0);
    const px = g.getImageData(0, 0, c.width, c.height).data;
    let sum = 0, sum2 = 0, n = 0;
    for (let i = 0; i < px.length; i += 16) {
      const v = (px[i] + px[i + 1] + px[i + 2]) / 3;
      sum += v; sum2 += v * v; ++n;
    }
    return sum2 / n - (sum / n) * (sum / n);
  });
}

function worstFrame(report) {
  const t = report.totals || {};
  if (t.worst && Number.isInteger(t.worst.frame)) return t.worst.frame;
  const after = (report.metrics || {}).after || {};
  for (const key of ['slide', 'penetration', 'float'])
    if (after[key] && after[key].frame >= 0) return after[key].frame;
  return Math.floor(report.frames / 2);
}

async function checkPositions(page, expected, which) {
  const names = await page.evaluate(() => window.ikfixViewer.jointNames);
  let worst = 0, worstName = '';
  for (const [name, p] of Object.entries(expected.joints)) {
    if (!names.includes(name)) fail(`the page has no joint ${name}`);
    const q = await page.evaluate((n, w) => window.ikfixViewer.jointPosition(n, w), name, which);
    const d = Math.hypot(q[0] - p[0], q[1] - p[1], q[2] - p[2]);
    if (d > worst) { worst = d; worstName = name; }
  }
  console.log(`frame ${expected.frame} (${which}): ${Object.keys(expected.joints).length} joints, largest difference ${worst.toExponential(2)} m (${worstName})`);
  if (!(worst <= 1e-4)) fail(`joint ${worstName} is ${worst} m away from the written clip at frame ${expected.frame}`);
}

async function checkOpened(opened, shot, label) {
  const first = await waitForViewer(opened);
  console.log(`${label}: first frame drawn ${first.toFixed(0)} ms after navigation start`);
  const variance = await canvasVariance(opened.page);
  console.log(`${label}: canvas variance ${variance.toFixed(1)}`);
  if (!(variance > 20)) fail(`${label}: the canvas looks blank (variance ${variance})`);
  const view = await opened.page.evaluate(() => window.ikfixViewer.figureInView());
  console.log(`${label}: ${view.shown} of ${view.total} joints in view, figure ${view.height.toFixed(2)} m, ` +
    `camera ${view.distance.toFixed(2)} m away`);
  if (!(view.total > 0 && view.shown === view.total))
    fail(`${label}: the camera shows ${view.shown} of the figure's ${view.total} joints on the first frame ` +
      `(not ${view.hidden.join(', ')})`);
  await opened.page.screenshot({ path: shot });
  console.log(`${label}: screenshot ${shot}`);
}

function finish(opened, label) {
  if (opened.problems.length) fail(`${label}:\n  ` + opened.problems.join('\n  '));
}

async function clipTest(browser, ikfix, fkDump, clip, terrain, work) {
  const ext = clip.slice(clip.lastIndexOf('.'));
  const out = join(work, 'fixed' + ext), report = join(work, 'report.json'), html = join(work, 'page.html');
  run(ikfix, ['run', clip, '--terrain', terrain, '-o', out, '--report', report, '--html', html]);
  console.log(`page size ${statSync(html).size} bytes`);
  const r = JSON.parse(readFileSync(report, 'utf8'));
  const frame = worstFrame(r);
  const expectedAfter = JSON.parse(run(fkDump, [out, String(frame)]));
  const expectedBefore = JSON.parse(run(fkDump, [clip, String(frame)]));
  const opened = await openPage(browser, pathToFileURL(html).href);
  await checkOpened(opened, join(work, 'page.png'), 'run page');
  const count = await opened.page.evaluate(() => window.ikfixViewer.frameCount);
  if (count !== r.frames) fail(`frameCount ${count}, the report says ${r.frames}`);
  await opened.page.evaluate((f) => window.ikfixViewer.setFrame(f), frame);
  await checkPositions(opened.page, expectedAfter, 'after');
  await checkPositions(opened.page, expectedBefore, 'before');
  await opened.page.screenshot({ path: join(work, 'page_worst_frame.png') });
  finish(opened, 'run page');

  const checkHtml = join(work, 'check.html');
  run(ikfix, ['check', clip, '--terrain', terrain, '--html', checkHtml]);
  const checked = await openPage(browser, pathToFileURL(checkHtml).href);
  await checkOpened(checked, join(work, 'check.png'), 'check page');
  await checked.page.evaluate((f) => window.ikfixViewer.setFrame(f), frame);
  await checkPositions(checked.page, expectedBefore, 'before');
  finish(checked, 'check page');
}

async function indexTest(browser, ikfix, terrain, work, clips) {
  const dir = join(work, 'html');
  run(ikfix, ['batch', ...clips, '--terrain', terrain, '--out-dir', join(work, 'out'), '--html-dir', dir, '-q']);
  const opened = await openPage(browser, pathToFileURL(join(dir, 'index.html')).href);
  const rows = await opened.page.$$eval('table.clips tbody tr', (trs) => trs.length);
  if (rows !== clips.length) fail(`the index has ${rows} rows for ${clips.length} clips`);
  await opened.page.screenshot({ path: join(work, 'index.png') });
  const links = await opened.page.$$eval('table.clips a', (as) => as.map((a) => a.getAttribute('href')));
  if (links.length !== clips.length) fail(`the index links ${links.length} pages for ${clips.length} clips`);
  finish(opened, 'index');
  await Promise.all([opened.page.waitForNavigation({ waitUntil: 'load' }), opened.page.click('table.clips a')]);
  console.log('clicked through to ' + opened.page.url());
  if (!opened.page.url().endsWith('.html') || opened.page.url().endsWith('index.html')) fail('the click did not open a clip page');
  await checkOpened(opened, join(work, 'index_clip.png'), 'clip page from the index');
  finish(opened, 'clip page from the index');
}

async function main() {
  const [mode, ikfix, fkDump, ...rest] = process.argv.slice(2);
  if (!existsSync(chromium)) {
    console.log(`SKIP: no chromium at ${chromium}`);
    process.exit(SKIP);
  }
  const inputs = mode === 'clip' ? [rest[0]] : rest.slice(2);
  for (const input of inputs)
    if (!existsSync(input)) {
      if (process.env.CI === 'true') fail(`${input} is missing (CI=true: the shared data must be there)`);
      console.log(`SKIP: ${input} is missing (third-party data under ../shared/data)`);
      process.exit(SKIP);
    }
  const puppeteer = await loadPuppeteer();
  const work = resolve(mode === 'clip' ? rest[2] : rest[1]);
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  const browser = await puppeteer.launch({
    executablePath: chromium, headless: true,
    args: ['--no-sandbox', '--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--disable-gpu-sandbox'],
  });
  try {
    if (mode === 'clip') await clipTest(browser, ikfix, fkDump, rest[0], rest[1], work);
    else if (mode === 'index') await indexTest(browser, ikfix, rest[0], work, rest.slice(2));
    else fail('unknown mode ' + mode);
  } finally {
    await browser.close();
  }
  console.log('PASS');
}

main().catch((e) => fail(e.stack || String(e)));
