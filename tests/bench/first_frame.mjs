// Time to the first frame drawn of ikfix HTML report pages in headless Chromium (issue 17: 1 s).
//
//   node tests/bench/first_frame.mjs ROUNDS PAGE.html [PAGE.html ...]
//
// Each round opens every page once in a new tab (the order rotates each round) and reads
// window.ikfixViewer.firstFrameMs (milliseconds after navigation start) and the page's marks
// (window.ikfixMarks: data parsed, decoded, laid out, drawn). Prints each page's median and
// range. Uses puppeteer-core from tests/browser/node_modules and Debian's chromium, as the
// browser tests do (same flags: SwiftShader WebGL).
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(join(here, '../browser/package.json'));
const puppeteer = require('puppeteer-core');

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function firstFrame(browser, url) {
  const page = await browser.newPage();
  await page.setViewport({ width: 1400, height: 1000 });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  await page.goto(url, { waitUntil: 'load' });
  await page.waitForFunction(() => window.ikfixViewer !== undefined, { timeout: 30000 });
  const result = await page.evaluate(() => ({
    first: window.ikfixViewer.firstFrameMs, marks: window.ikfixMarks || {},
    dcl: performance.getEntriesByType('navigation')[0].domContentLoadedEventEnd,
  }));
  await page.close();
  if (errors.length) throw new Error(url + ': ' + errors.join('; '));
  return result;
}

async function main() {
  const [rounds, ...pages] = process.argv.slice(2);
  const urls = pages.map((p) => pathToFileURL(resolve(p)).href);
  const browser = await puppeteer.launch({
    executablePath: process.env.IKFIX_CHROMIUM || '/usr/bin/chromium', headless: true,
    args: ['--no-sandbox', '--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--disable-gpu-sandbox'],
  });
  const times = urls.map(() => []);
  try {
    await firstFrame(browser, urls[0]);  // warm-up: the browser's own start
    for (let r = 0; r < Number(rounds); ++r)
      for (let k = 0; k < urls.length; ++k) {
        const i = (k + r) % urls.length;
        const t = await firstFrame(browser, urls[i]);
        times[i].push(t);
        const marks = Object.entries(t.marks).map(([name, ms]) => `${name} ${ms.toFixed(0)}`).join(', ');
        console.log(`${pages[i]}: first frame ${t.first.toFixed(0)} ms (DOMContentLoaded ${t.dcl.toFixed(0)}; ${marks})`);
      }
  } finally {
    await browser.close();
  }
  pages.forEach((p, i) => {
    const first = times[i].map((t) => t.first);
    console.log(`${p}: first frame median ${median(first).toFixed(0)} ms, ` +
      `min ${Math.min(...first).toFixed(0)}, max ${Math.max(...first).toFixed(0)} (n=${first.length})`);
  });
}

main().catch((e) => { console.error(e.stack || String(e)); process.exit(1); });
