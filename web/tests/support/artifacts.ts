/**
 * Real artifacts for the fixture runs, made by the same Chromium the tests drive: a Playwright trace
 * archive (so the self-hosted trace viewer has something true to open), a screenshot of a small checkout
 * page whose "Pay" button fails, and a short WebM video (recorded by the page itself with MediaRecorder:
 * Playwright's own video recording needs an ffmpeg build it cannot download here).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Page } from '@playwright/test';
import { CHROMIUM_PATH, CHROMIUM_ARGS } from './chromium';

export interface Artifacts {
  trace: string;
  screenshot: string;
  video: string;
}

const PAGE = `<!doctype html><html><head><title>Checkout</title></head>
<body style="font-family: sans-serif; padding: 24px">
  <h1>Checkout</h1>
  <p>Total: <strong id="total">€42.00</strong></p>
  <button id="pay" onclick="document.getElementById('status').textContent = 'Card declined'">Pay</button>
  <p id="status" role="status"></p>
</body></html>`;

/** Records the artifacts into `dir` once; returns their paths. */
export async function recordArtifacts(dir: string): Promise<Artifacts> {
  mkdirSync(dir, { recursive: true });
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  try {
    const context = await browser.newContext({ viewport: { width: 640, height: 360 } });
    await context.tracing.start({ screenshots: true, snapshots: true, title: 'checkout pays' });
    const page = await context.newPage();
    await page.setContent(PAGE);
    await page.getByRole('button', { name: 'Pay' }).click();
    await page.getByRole('status').waitFor();
    const screenshot = path.join(dir, 'checkout-failed.png');
    await page.screenshot({ path: screenshot });
    const trace = path.join(dir, 'trace.zip');
    await context.tracing.stop({ path: trace });
    const video = path.join(dir, 'checkout.webm');
    writeFileSync(video, Buffer.from(await recordWebm(page), 'base64'));
    await context.close();
    return { trace, screenshot, video };
  } finally {
    await browser.close();
  }
}

/**
 * One second of a canvas animation, recorded by the page as WebM; resolves with its bytes in base64. A
 * string, so that no build step of whoever runs this file rewrites the functions it sends to the page.
 */
const RECORD_WEBM = `new Promise((resolve, reject) => {
  const canvas = document.createElement('canvas');
  canvas.width = 320;
  canvas.height = 180;
  document.body.append(canvas);
  const context = canvas.getContext('2d');
  const recorder = new MediaRecorder(canvas.captureStream(25), { mimeType: 'video/webm' });
  const chunks = [];
  recorder.ondataavailable = (event) => chunks.push(event.data);
  recorder.onerror = (event) => reject(event.error);
  recorder.onstop = () => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).split(',')[1] || '');
    reader.readAsDataURL(new Blob(chunks, { type: 'video/webm' }));
  };
  let frame = 0;
  function draw() {
    context.fillStyle = '#1c7ed6';
    context.fillRect(0, 0, 320, 180);
    context.fillStyle = '#fff';
    context.font = '24px sans-serif';
    context.fillText('Checkout ' + frame, 20 + (frame++ % 100), 100);
    if (recorder.state === 'recording') requestAnimationFrame(draw);
  }
  recorder.start();
  draw();
  setTimeout(() => recorder.stop(), 1000);
})`;

function recordWebm(page: Page): Promise<string> {
  return page.evaluate<string>(RECORD_WEBM);
}
