// Looks at a gjkd page as a person would: Debian's Chromium (headless, software WebGL through
// SwiftShader) opens PAGE.html#FRAGMENT from disk, a screenshot is taken of the page and of its
// WebGL canvas, and what the page said on its console is collected. Prints one JSON line:
//   {"ready": bool, "errors": [...], "console": [...], "canvas": {"width", "height",
//    "background": [r,g,b], "drawn": fraction of pixels not background}, "canvas_png": path}
// usage: node shoot.mjs PAGE.html OUT.png [--fragment waypoint=59] [--size 1200x900]
//        [--chromium /usr/bin/chromium] [--canvas SELECTOR] [--compare OTHER.canvas.png]
// (--compare: canvas.differs, the share of canvas pixels unlike OTHER's)
// No network: every host name resolves to nothing but the page is a file.
import { createRequire } from 'node:module';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { inflateSync } from 'node:zlib';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(join(resolve(process.env.NODE_PATH || join(here, '..', 'node_modules')), 'x.js'));
const puppeteer = require('puppeteer-core');

const argv = process.argv.slice(2);
const opt = { fragment: '', size: '1200x900', chromium: '/usr/bin/chromium', canvas: 'canvas' };
const pos = [];
for (let i = 0; i < argv.length; i++) {
  if (argv[i].startsWith('--')) opt[argv[i].slice(2)] = argv[++i];
  else pos.push(argv[i]);
}
if (pos.length !== 2) { console.error('usage: node shoot.mjs PAGE.html OUT.png [--fragment F]'); process.exit(2); }
const [pagePath, outPng] = pos;
const [W, H] = opt.size.split('x').map(Number);

// A PNG (8-bit RGB or RGBA, non-interlaced, as Chromium writes them) to RGBA pixels.
function decodePng(buf) {
  let off = 8, w = 0, h = 0, ct = 0;
  const idat = [];
  while (off < buf.length) {
    const len = buf.readUInt32BE(off), type = buf.toString('ascii', off + 4, off + 8);
    const data = buf.subarray(off + 8, off + 8 + len);
    if (type === 'IHDR') {
      w = data.readUInt32BE(0); h = data.readUInt32BE(4); ct = data[9];
      if (data[8] !== 8 || data[12] !== 0 || (ct !== 2 && ct !== 6)) throw new Error('PNG: unsupported format');
    } else if (type === 'IDAT') idat.push(data);
    off += 12 + len;
  }
  const bpp = ct === 6 ? 4 : 3, stride = w * bpp, raw = inflateSync(Buffer.concat(idat));
  const out = Buffer.alloc(w * h * 4), line = Buffer.alloc(stride), prev = Buffer.alloc(stride);
  for (let y = 0; y < h; y++) {
    const f = raw[y * (stride + 1)], src = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    for (let i = 0; i < stride; i++) {
      const a = i >= bpp ? line[i - bpp] : 0, b = prev[i], c = i >= bpp ? prev[i - bpp] : 0;
      let p = 0;
      if (f === 1) p = a; else if (f === 2) p = b; else if (f === 3) p = (a + b) >> 1;
      else if (f === 4) { const q = a + b - c, pa = Math.abs(q - a), pb = Math.abs(q - b), pc = Math.abs(q - c); p = pa <= pb && pa <= pc ? a : pb <= pc ? b : c; }
      line[i] = (src[i] + p) & 255;
    }
    for (let x = 0; x < w; x++) {
      out[(y * w + x) * 4] = line[x * bpp]; out[(y * w + x) * 4 + 1] = line[x * bpp + 1];
      out[(y * w + x) * 4 + 2] = line[x * bpp + 2]; out[(y * w + x) * 4 + 3] = bpp === 4 ? line[x * bpp + 3] : 255;
    }
    line.copy(prev);
  }
  return { w, h, px: out };
}

const browser = await puppeteer.launch({
  executablePath: opt.chromium,
  headless: true,
  args: ['--no-sandbox', '--use-angle=swiftshader', '--enable-unsafe-swiftshader',
    '--disable-background-networking', '--disable-component-update', '--no-first-run',
    '--disable-default-apps', '--disable-sync', '--host-resolver-rules=MAP * ~NOTFOUND',
    `--window-size=${W},${H}`],
  defaultViewport: { width: W, height: H },
  timeout: 60000,
});
const result = { ready: false, errors: [], console: [] };
try {
  const page = await browser.newPage();
  page.on('console', (m) => {
    result.console.push(`${m.type()}: ${m.text()}`);
    if (m.type() === 'error') result.errors.push(m.text());
  });
  page.on('pageerror', (e) => result.errors.push(String(e && e.message ? e.message : e)));
  page.on('requestfailed', (r) => result.errors.push(`request failed: ${r.url()}`));
  const url = pathToFileURL(resolve(pagePath)).href + (opt.fragment ? `#${opt.fragment}` : '');
  await page.goto(url, { waitUntil: 'load', timeout: 60000 });
  await page.waitForFunction('document.body && document.body.dataset.ready === "1"', { timeout: 30000 })
    .then(() => { result.ready = true; }, () => {});
  await new Promise((r) => setTimeout(r, 300)); // let the first frames reach the screen
  writeFileSync(outPng, await page.screenshot({ type: 'png' }));
  const el = await page.$(opt.canvas);
  if (el) {
    const shot = await el.screenshot({ type: 'png' });
    const canvasPng = outPng.replace(/\.png$/, '') + '.canvas.png';
    writeFileSync(canvasPng, shot);
    const { w, h, px } = decodePng(shot);
    // The background is the colour of the canvas's corner; "drawn" the share of pixels
    // farther from it than a faint anti-aliasing step.
    const bg = [px[0], px[1], px[2]];
    let drawn = 0;
    for (let i = 0; i < w * h; i++) {
      const d = Math.abs(px[4 * i] - bg[0]) + Math.abs(px[4 * i + 1] - bg[1]) + Math.abs(px[4 * i + 2] - bg[2]);
      if (d > 24) drawn++;
    }
    result.canvas = { width: w, height: h, background: bg, drawn: drawn / (w * h) };
    result.canvas_png = canvasPng;
    if (opt.compare) {
      // The share of pixels that differ from another screenshot of the same size.
      const o = decodePng(readFileSync(opt.compare));
      let diff = 0;
      if (o.w === w && o.h === h)
        for (let i = 0; i < w * h; i++)
          if (Math.abs(o.px[4 * i] - px[4 * i]) + Math.abs(o.px[4 * i + 1] - px[4 * i + 1]) + Math.abs(o.px[4 * i + 2] - px[4 * i + 2]) > 24) diff++;
      result.canvas.differs = o.w === w && o.h === h ? diff / (w * h) : 1;
    }
  }
  result.state = await page.evaluate(() => ({ ...document.body.dataset, hash: location.hash }));
} catch (e) {
  result.errors.push(`harness: ${e.message}`);
} finally {
  await browser.close();
}
console.log(JSON.stringify(result));
