/**
 * The page at / in a real browser: Debian's headless Chromium (driven by playwright-core) loads it
 * from the app on loopback, with no console error, no request to any other origin, and Swagger UI
 * listing the six operations of /openapi.json. A screenshot is saved under test/artifacts/.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve, type ServerType } from '@hono/node-server';
import { type BrowserContext, chromium } from 'playwright-core';
import { pino } from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { missingLine, REQUIREMENTS, thisMachine } from '../../scripts/provision-test.ts';
import { loadConfig } from '../../src/config.ts';
import { createApp } from '../../src/http/app.ts';
import { REPO_ROOT } from '../support/run-command.ts';
import { throwingRunners } from '../unit/http/discovery/discovery-app.ts';

const CHROMIUM_REQUIREMENT = REQUIREMENTS.find(({ debianPackage }) => debianPackage === 'chromium')!;
const CHROMIUM = CHROMIUM_REQUIREMENT.where;
const ARTIFACTS = join(REPO_ROOT, 'test/artifacts');

let server: ServerType;
let origin: string;
let context: BrowserContext;
let profile: string;

beforeAll(async () => {
  let handle: (request: Request) => Response | Promise<Response> = () => new Response(null, { status: 503 });
  server = serve({ fetch: (request) => handle(request), hostname: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const config = loadConfig({ PUBLIC_BASE_URL: origin });
  const app = createApp({ config, runners: throwingRunners(), logger: pino({ level: 'silent' }) });
  handle = (request) => app.fetch(request);

  // Never a silent pass: without the browser this test fails with the one line saying what to install.
  if (!thisMachine().has(CHROMIUM_REQUIREMENT))
    throw new Error(missingLine([CHROMIUM_REQUIREMENT], 'npm test installs it only as root, with apt-get'));
  profile = await mkdtemp(join(tmpdir(), 'chromium-profile-'));
  // A fresh profile per run: an old one could make Chromium fetch updates or sync.
  context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    viewport: { width: 1280, height: 900 },
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
}, 60_000);

afterAll(async () => {
  await context?.close();
  if (profile) await rm(profile, { recursive: true, force: true });
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
});

it('renders the page and the API reference with no console error and no request off this origin', async () => {
  const page = await context.newPage();
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
  expect(response?.status()).toBe(200);
  expect(response?.headers()['content-type']).toBe('text/html; charset=utf-8');
  await expect(page.title()).resolves.toMatch(/^Website Checks/);
  await page.locator('#api-reference .opblock').first().waitFor({ timeout: 20_000 });

  const operations = await page.locator('#api-reference .opblock-summary-path').allInnerTexts();
  expect(operations.map((path) => path.replace(/\u200b/g, '').trim()).sort()).toEqual([
    '/health',
    '/readyz',
    '/v1/cert',
    '/v1/dns',
    '/v1/expiry',
    '/v1/site-health',
    '/v1/validate',
  ]);
  expect(await page.locator('h2').allInnerTexts()).toEqual(
    expect.arrayContaining(['Checks and prices', 'How to pay', 'Examples', 'API reference']),
  );
  expect(await page.locator('.example button').count()).toBeGreaterThanOrEqual(4);
  const icon = await page.request.get(`${origin}/favicon.ico`);
  expect(icon.headers()['content-type']).toBe('image/svg+xml');

  await mkdir(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, 'home-page.png'), fullPage: true });
  expect(problems).toEqual([]);
  expect(foreign).toEqual([]);
  await page.close();
}, 60_000);
