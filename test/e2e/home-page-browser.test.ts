/**
 * The page at / in a real browser: Debian's headless Chromium (driven by playwright-core) loads it
 * from the paid service on loopback, on a phone (390 px) and a desktop (1366 px), with no console
 * error, no request to any other origin, Swagger UI listing the operations of /openapi.json, no
 * horizontal scrolling of the page, every price-table cell on screen and every example command
 * readable beside (never under) its Copy button. "Try it out" on a paid route shows the 402
 * challenge decoded beside the raw header. Screenshots are saved under test/artifacts/.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { missingLine, REQUIREMENTS, thisMachine } from '../../scripts/provision-test.ts';
import { REPO_ROOT } from '../support/run-command.ts';
import { type PaidService, startPaidService } from '../world/paid-service.ts';

const CHROMIUM_REQUIREMENT = REQUIREMENTS.find(({ debianPackage }) => debianPackage === 'chromium')!;
const ARTIFACTS = join(REPO_ROOT, 'test/artifacts');
const WIDTHS = [
  { name: 'phone', width: 390, height: 844 },
  { name: 'desktop', width: 1366, height: 900 },
] as const;

let service: PaidService;
let origin: string;
let context: BrowserContext;
let profile: string;

beforeAll(async () => {
  // Never a silent pass: without the browser this test fails with the one line saying what to install.
  if (!thisMachine().has(CHROMIUM_REQUIREMENT))
    throw new Error(missingLine([CHROMIUM_REQUIREMENT], 'npm test installs it only as root, with apt-get'));
  service = await startPaidService();
  origin = service.url.origin;
  profile = await mkdtemp(join(tmpdir(), 'chromium-profile-'));
  // A fresh profile per run: an old one could make Chromium fetch updates or sync.
  context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_REQUIREMENT.where,
    viewport: { width: 1366, height: 900 },
    // Flags that keep Chromium from reaching any network on its own.
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  await mkdir(ARTIFACTS, { recursive: true });
}, 60_000);

afterAll(async () => {
  await context?.close();
  if (profile) await rm(profile, { recursive: true, force: true });
  await service?.close();
});

/** A page of the service at `width`, recording console errors and aborting any foreign request. */
async function openPage(width: number, height: number) {
  const page = await context.newPage();
  await page.setViewportSize({ width, height });
  const problems: string[] = [];
  const foreign: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(error.message));
  // Any request to another origin is recorded and aborted: the test itself stays on loopback.
  await page.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith(origin) || url.startsWith('data:')) return route.continue();
    foreign.push(url);
    return route.abort();
  });
  const response = await page.goto(`${origin}/`, { waitUntil: 'networkidle' });
  await page.locator('#api-reference .opblock').first().waitFor({ timeout: 20_000 });
  return { page, response, problems, foreign };
}

interface Layout {
  innerWidth: number;
  scrollWidth: number;
  examples: { label: string; underButton: boolean; hiddenWidth: number; right: number }[];
  cellsOffScreen: string[];
}

/**
 * What overlaps or overflows, measured by the browser. A string, because it runs in the page (this
 * project compiles without the DOM's types).
 */
const MEASURE = `(() => {
  const box = (element) => element.getBoundingClientRect();
  const overlaps = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  return {
    innerWidth: window.innerWidth,
    scrollWidth: document.scrollingElement.scrollWidth,
    examples: [...document.querySelectorAll('.command')].map((example) => {
      const pre = example.querySelector('pre');
      const button = example.querySelector('button');
      return {
        label: example.dataset.label,
        underButton: overlaps(box(pre), box(button)),
        hiddenWidth: pre.scrollWidth - pre.clientWidth,
        right: box(pre).right,
      };
    }),
    cellsOffScreen: [...document.querySelectorAll('main table td')]
      .filter((cell) => box(cell).right > window.innerWidth + 0.5 || box(cell).left < -0.5)
      .map((cell) => cell.textContent),
  };
})()`;

function layout(page: Page): Promise<Layout> {
  return page.evaluate(MEASURE) as Promise<Layout>;
}

describe.each(WIDTHS)('the page at $width px ($name)', ({ name, width, height }) => {
  it('renders with no console error, no request off this origin, and nothing off-screen', async () => {
    const { page, response, problems, foreign } = await openPage(width, height);
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-type']).toBe('text/html; charset=utf-8');
    await expect(page.title()).resolves.toMatch(/^Website Checks/);

    const operations = await page.locator('#api-reference .opblock-summary-path').allInnerTexts();
    expect(operations.map((path) => path.replace(/\u200b/g, '').trim()).sort()).toEqual([
      '/health',
      '/readyz',
      '/v1/cert',
      '/v1/dns',
      '/v1/expiry',
      '/v1/site-health',
      '/v1/validate',
      // Buying (POST) and the signed-in wallet's list (GET).
      '/v1/watches',
      '/v1/watches',
      '/v1/watches/{watch_id}',
      '/v1/watches/{watch_id}',
      '/v1/watches/{watch_id}/extend',
      '/v1/watches/{watch_id}/rotate-secret',
      '/v1/watches/{watch_id}/rotate-token',
      // The webhook a watch posts (OpenAPI 3.1 `webhooks`), shown beside the paths.
      'watchEvent',
    ]);
    expect(await page.locator('h2').allInnerTexts()).toEqual(
      expect.arrayContaining(['Checks and prices', 'How to pay', 'Examples', 'API reference']),
    );
    const icon = await page.request.get(`${origin}/favicon.ico`);
    expect(icon.headers()['content-type']).toBe('image/svg+xml');

    const measured = await layout(page);
    expect(measured.scrollWidth, 'the page scrolls sideways').toBeLessThanOrEqual(measured.innerWidth);
    expect(measured.cellsOffScreen).toEqual([]);
    expect(measured.examples.length).toBeGreaterThanOrEqual(4);
    for (const example of measured.examples) {
      expect(example.underButton, `${example.label}: command under the Copy button`).toBe(false);
      expect(example.hiddenWidth, `${example.label}: command cut off`).toBeLessThanOrEqual(0);
      expect(example.right).toBeLessThanOrEqual(measured.innerWidth);
    }

    await page.screenshot({ path: join(ARTIFACTS, `home-page-${name}.png`), fullPage: true });
    expect(problems).toEqual([]);
    expect(foreign).toEqual([]);
    await page.close();
  }, 60_000);

  it('"Try it out" on a paid route shows the 402 challenge decoded beside the raw header', async () => {
    const { page, problems, foreign } = await openPage(width, height);
    const operation = page.locator('#operations-checks-v1_cert');
    await operation.locator('.opblock-summary').click();
    await operation.getByRole('button', { name: 'Try it out' }).click();
    await operation.locator('input[placeholder="domain"]').fill('example.com');
    await operation.getByRole('button', { name: 'Execute' }).click();

    const decoded = operation.locator('.decoded-challenge');
    await decoded.waitFor({ timeout: 20_000 });
    expect(
      await operation.locator('.live-responses-table tbody .response-col_status').first().innerText(),
    ).toBe('402');
    // The raw header is still there, as Swagger UI shows it.
    const headerLines = await operation.locator('.live-responses-table .headerline').allInnerTexts();
    expect(headerLines.map((line) => line.trim())).toEqual(
      expect.arrayContaining([expect.stringMatching(/^payment-required: [A-Za-z0-9+/=]{100,}$/)]),
    );
    const text = await decoded.innerText();
    expect(text).toContain('PAYMENT-REQUIRED, decoded');
    expect(text).toMatch(/Price\s+\$0\.01 in USDC \(10000 atomic units, scheme exact\)/);
    expect(text).toMatch(/Network\s+eip155:8453 \(Base\)/);
    expect(text).toContain(service.chain.asset);
    expect(text).toMatch(new RegExp(`Recipient\\s+${service.chain.payTo}`, 'i'));
    expect(text).toContain(`${origin}/v1/cert`);

    const measured = await layout(page);
    expect(measured.scrollWidth, 'the page scrolls sideways').toBeLessThanOrEqual(measured.innerWidth);
    await decoded.scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(ARTIFACTS, `home-page-try-402-${name}.png`) });
    // The browser reports the 402 itself as a failed resource load; nothing else may fail.
    expect(problems.filter((problem) => !/status of 402/.test(problem))).toEqual([]);
    expect(foreign).toEqual([]);
    await page.close();
  }, 60_000);
});
