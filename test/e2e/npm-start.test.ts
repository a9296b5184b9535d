/**
 * The README's first command on a fresh clone: `npm start` with no payment configuration starts
 * the embedded chain and the service, and the client command it prints pays for a check. Then, on
 * that same process, every command of the README, of docs/ and of examples/README.md runs as written (the
 * port and the demo key filled in), and the examples pay against the closed world. Only the
 * upstream variables point at the world (CI has no internet), and PORT picks a free port.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, run } from '../support/run-command.ts';
import { startWorld, type World } from '../world/index.ts';
import { type CaFile, writeCaFile } from '../world/test-ca.ts';
import { bashCommands, classifyReadmeCommand } from './readme-commands.ts';
import { freePort } from '../support/free-port.ts';
import { markdownDocuments } from '../support/documents.ts';
import { payingFetchFor } from '../world/payer-client.ts';
import { privateKeyToAccount } from 'viem/accounts';

const STARTUP_TIMEOUT_MS = 45_000;

/**
 * The documents with commands a reader runs against the service. Not the client package's README
 * (its lines run the packed tarball: test/e2e/client-package.test.ts) nor the MCP set-up (commands
 * of an MCP host such as Claude Code).
 */
const COMMAND_DOCUMENTS: string[] = [];
for (const file of await markdownDocuments()) {
  if (file.startsWith('packages/') || file === 'examples/mcp/README.md') continue;
  if (bashCommands(await readFile(`${REPO_ROOT}${file}`, 'utf8')).length > 0) COMMAND_DOCUMENTS.push(file);
}

let world: World;
let ca: CaFile;
let service: ChildProcess;
let stdout = '';
let port = 0;
let command = '';
let demoKey = '';

/** Resolves with the printed pay command once the service says it is listening. */
function waitForPayCommand(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no pay command within ${STARTUP_TIMEOUT_MS} ms:\n${stdout}`)),
      STARTUP_TIMEOUT_MS,
    );
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const command = /^\s*(X402_PRIVATE_KEY=0x[0-9a-f]{64} npm run -s cli -- .+)$/m.exec(stdout)?.[1];
      if (command && stdout.includes('"msg":"listening"')) {
        clearTimeout(timer);
        resolve(command.trim());
      }
    });
    child.on('exit', (code) => reject(new Error(`npm start exited with ${code}:\n${stdout}`)));
  });
}

/** A shell line run from the repository root with only PATH and HOME, as a reader's shell would. */
const shell = (line: string) =>
  run('bash', ['-c', line], { cwd: REPO_ROOT, env: { PATH: process.env.PATH, HOME: process.env.HOME } });

beforeAll(async () => {
  world = await startWorld();
  ca = await writeCaFile(world.site.caPem);
  port = await freePort();
  service = spawn('npm', ['start'], {
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      PORT: String(port),
      NODE_EXTRA_CA_CERTS: ca.path,
      ...world.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  command = await waitForPayCommand(service);
  demoKey = /X402_PRIVATE_KEY=(0x[0-9a-f]{64})/.exec(command)?.[1] ?? '';
}, 60_000);

afterAll(async () => {
  // Only reached with the service still up when a test failed part way: stop it and its chain.
  const servicePid = Number(/"pid":(\d+)[^\n]*"msg":"listening"/.exec(stdout)?.[1]);
  if (service && service.exitCode === null) {
    if (servicePid > 0) process.kill(servicePid, 'SIGTERM');
    service.kill('SIGTERM');
  }
  await world?.close();
  await ca?.remove();
});

describe('npm start', () => {
  it('serves MCP and pays for the printed check on the embedded chain', async () => {
    expect(command).toContain(`--url http://localhost:${port}`);
    // The real process serves the MCP endpoint too, with the catalog's tools and the watch tools.
    const mcp = await fetch(`http://localhost:${port}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(mcp.status).toBe(200);
    const tools = ((await mcp.json()) as { result: { tools: { name: string }[] } }).result.tools.map(
      (t) => t.name,
    );
    expect(tools.sort()).toEqual([
      'check_cert',
      'check_dns',
      'check_domain_expiry',
      'pricing',
      'site_health',
      'validate_target',
      'watch_cancel',
      'watch_domain',
      'watch_extend',
      'watch_list',
      'watch_rotate_secret',
      'watch_rotate_token',
      'watch_status',
    ]);

    const paid = await shell(command);
    expect(paid.code, paid.stderr).toBe(0);
    const result = JSON.parse(paid.stdout) as {
      domain: string;
      disclaimer: string;
      certificate: { issuer: string } | null;
    };
    // Upstreams at the world: the banner names a world domain, whose check finds a certificate.
    expect(command).toContain(' cert healthy-shop.com ');
    expect(result.domain).toBe('healthy-shop.com');
    expect(result.certificate?.issuer).toBeTruthy();
    expect(result.disclaimer).toBe('Results are data, not guarantees.');
    expect(paid.stderr).toMatch(/0x[0-9a-f]{64}/); // the settlement transaction hash
    expect(world.crtsh.requests.length).toBeGreaterThan(0); // the check really ran against the world
  }, 60_000);

  it('reads the commands of the README, docs/ and the examples', () => {
    expect(COMMAND_DOCUMENTS).toEqual(
      expect.arrayContaining(['README.md', 'examples/README.md', 'docs/try-locally.md', 'docs/paying.md']),
    );
  });

  it.each(COMMAND_DOCUMENTS)(
    'runs every command of %s as written (port and demo key filled in)',
    async (file) => {
      const commands = bashCommands(await readFile(`${REPO_ROOT}${file}`, 'utf8'));
      for (const line of commands) {
        const plan = classifyReadmeCommand(line, { port, demoKey });
        if (plan.kind === 'covered') continue;
        const ran = await shell(plan.command);
        expect(ran.code, `${line}\n${ran.stderr}`).toBe(0);
        expect(ran.stdout, line).toMatch(plan.expect);
        if (plan.paid) expect(`${ran.stdout}${ran.stderr}`, line).toMatch(/transaction\W+0x[0-9a-f]{64}/i);
      }
    },
    120_000,
  );

  it("runs the README's watch lines as written: the purchase's 402, then pull (`?since=` empty reading from the start) and cancel", async () => {
    const readme = await readFile(`${REPO_ROOT}README.md`, 'utf8');
    const section = readme.slice(readme.indexOf('## Watch a domain'));
    const block = /^```sh\n([\s\S]*?)^```$/m.exec(section)?.[1] ?? '';
    const lines = block
      .replace(/\\\n\s*/g, ' ')
      .split('\n')
      .filter((line) => line.startsWith('curl '));
    const [purchase] = lines.filter((line) => line.includes('-X POST'));
    const [pull, cancel] = lines.filter((line) => line.includes('$WATCH_ID'));
    expect(lines).toHaveLength(3);
    const base = `http://localhost:${port}`;
    // Its webhook's host resolves in the closed world (scenarios/hooks.example.net.ts): the answer
    // is the payment's challenge, priced in words. The watch is then bought as it says.
    const unpaid = await run('bash', ['-c', purchase!], {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, BASE: base },
    });
    expect(JSON.parse(unpaid.stdout)).toMatchObject({
      status: 402,
      code: 'payment_required',
      detail: expect.stringContaining('This watch costs $0.10 in USDC for 30 days'),
    });
    const bought = await payingFetchFor(privateKeyToAccount(demoKey as `0x${string}`))(`${base}/v1/watches`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ domain: 'healthy-shop.com', days: 1 }),
    });
    expect(bought.status).toBe(201);
    const { watch_id, token } = (await bought.json()) as { watch_id: string; token: string };
    const as = (line: string, lastEventId: string) =>
      run('bash', ['-c', line], {
        cwd: REPO_ROOT,
        env: {
          PATH: process.env.PATH,
          HOME: process.env.HOME,
          BASE: base,
          WATCH_ID: watch_id,
          TOKEN: token,
          LAST_EVENT_ID: lastEventId,
        },
      });
    const first = JSON.parse((await as(pull!, '')).stdout) as { events: { id: string; type: string }[] };
    expect(first.events[0]?.type).toBe('watch.created');
    const later = JSON.parse((await as(pull!, first.events[0]!.id)).stdout) as { events: { id: string }[] };
    expect(later.events.map((event) => event.id)).not.toContain(first.events[0]!.id);
    expect(JSON.parse((await as(cancel!, '')).stdout)).toMatchObject({ watch_id, status: 'cancelled' });
  }, 60_000);

  it('stops cleanly on SIGTERM, with its embedded chain', async () => {
    const anvilPid = Number(/"anvil_pid":(\d+)/.exec(stdout)?.[1]);
    const servicePid = Number(/"pid":(\d+)[^\n]*"msg":"listening"/.exec(stdout)?.[1]);
    expect(anvilPid).toBeGreaterThan(0);
    expect(servicePid).toBeGreaterThan(0);
    const exited = new Promise<number | null>((resolve) => service.on('exit', resolve));
    // SIGTERM to the command the README starts (npm), as a process manager would: it must reach the
    // service, which stops gracefully; npm passes its exit code through.
    process.kill(service.pid ?? 0, 'SIGTERM');
    expect(await exited).toBe(0);
    expect(stdout).toContain('"msg":"shutting down"');
    expect(() => process.kill(servicePid, 0)).toThrow(); // not orphaned
    expect(() => process.kill(anvilPid, 0)).toThrow(); // the embedded chain stopped with it
  }, 30_000);
});
