/**
 * No documentation line may run a package this project has not published. A documented `npx`,
 * `npm exec` or `npm install` runs whatever the registry serves under that name: for an unpublished
 * name, whoever registers it first receives the `X402_PRIVATE_KEY` of every reader who copies the
 * line. `npm view` would tell, but tests never leave loopback, so the registry's answer is recorded
 * here instead: a registry name is allowed only if it is in `package-lock.json` (npm resolved it
 * from the registry, so it is published) or in `PUBLISHED` (the project's own packages, added there
 * by the release step of the README once `npm view <name>` shows the project's version). Local
 * specs — `./website-checks-cli-1.0.0.tgz`, a folder — never reach the registry.
 */
import { readdir, readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import lock from '../../package-lock.json' with { type: 'json' };
import { markdownDocuments } from '../support/documents.ts';
import packageJson from '../../package.json' with { type: 'json' };
import clientPackage from '../../packages/client/package.json' with { type: 'json' };

const ROOT = new URL('../../', import.meta.url);

/** The client's npm name; never the unrelated `website-checks` package. */
const CLIENT_PACKAGE = 'website-checks-cli';

/** Packages of this project that `npm view` shows published by the project (none yet). */
const PUBLISHED = new Set<string>([]);

/** Every package npm resolved for this repository, from the registry. */
const LOCKED = new Set(
  Object.keys(lock.packages)
    .filter((path) => path.startsWith('node_modules/'))
    .map((path) => path.replace(/^(?:.*\/)?node_modules\//, '')),
);

async function documents(): Promise<string[]> {
  const examples = (await readdir(new URL('examples/', ROOT), { recursive: true })).map(
    (file) => `examples/${file}`,
  );
  return [
    ...(await markdownDocuments()),
    'src/http/discovery/home-page.ts',
    'src/http/discovery/llms-txt.ts',
    'src/startup-messages.ts',
    ...examples.filter((file) => /\.(ts|sh|py|go)$/.test(file)),
  ];
}

/** A spec npm takes from the disk, not the registry: a path or a tarball. */
function isLocal(spec: string): boolean {
  return /^(\.{0,2}\/|~\/|file:)/.test(spec) || spec.endsWith('.tgz');
}

/** The package name of a registry spec: `name@1.2`, `@scope/name@^1` → the name. */
function packageName(spec: string): string {
  return spec.replace(/(?<=.)@.*$/, '');
}

/** Why a documented spec may run, or undefined when it may not. */
function allowed(spec: string): string | undefined {
  if (isLocal(spec)) return 'local';
  const name = packageName(spec);
  if (PUBLISHED.has(name)) return 'published by the project';
  if (LOCKED.has(name)) return 'locked dependency';
  // Placeholders the README explains: `npm install -D @foundry-rs/anvil-<os>-<arch>`.
  if (/^@foundry-rs\/anvil-<os>-<arch>$/.test(name) && LOCKED.has('@foundry-rs/anvil-linux-amd64'))
    return 'placeholder for a locked dependency';
  if (name === '<pkg>') return 'placeholder';
  return undefined;
}

/** The package specs a text runs or installs, with the command each appears in. */
export function documentedSpecs(text: string): { command: string; spec: string }[] {
  const found: { command: string; spec: string }[] = [];
  const flag = String.raw`(?:--?[\w-]+(?:=\S+)?\s+)*`;
  for (const [command, spec] of text.matchAll(new RegExp(String.raw`\bnpx\s+${flag}([^\s\`'"]+)`, 'g')))
    found.push({ command, spec: spec ?? '' });
  for (const [command, args] of text.matchAll(/\bnpm (?:exec|x)\b([^\n`]*)/g)) {
    const packages = [...(args ?? '').matchAll(/(?:--package[= ]|-p\s+)([^\s`'"]+)/g)].map((m) => m[1] ?? '');
    const bin = /\s--\s+([^\s`'"]+)/.exec(args ?? '')?.[1];
    for (const spec of packages.length > 0 ? packages : bin ? [bin] : []) found.push({ command, spec });
  }
  for (const [command, args] of text.matchAll(/\bnpm (?:install|i|add)(?![\w-])([^\n`]*)/g)) {
    for (const spec of (args ?? '')
      .replace(/\s#.*$/, '')
      .split(/\s+/)
      .filter((arg) => arg && !arg.startsWith('-')))
      found.push({ command, spec });
  }
  return found;
}

describe('documented commands', () => {
  it('name the client package, which is not the unrelated website-checks', () => {
    expect(clientPackage.name).toBe(CLIENT_PACKAGE);
    expect(Object.keys(clientPackage.bin)).toEqual([CLIENT_PACKAGE]);
    expect(packageJson.private).toBe(true);
    expect('bin' in packageJson).toBe(false);
  });

  it('run or install only local files, locked dependencies and packages the project published', async () => {
    const seen: string[] = [];
    for (const file of await documents()) {
      const text = await readFile(new URL(file, ROOT), 'utf8');
      for (const { command, spec } of documentedSpecs(text)) {
        seen.push(`${file}: ${spec}`);
        expect(
          allowed(spec),
          `${file}: "${command.trim()}" runs ${spec}, which npm may not find`,
        ).toBeDefined();
      }
    }
    // The scan does find the documents' npx, npm exec and npm install lines.
    expect(seen).toEqual(
      expect.arrayContaining([
        `docs/paying.md: ./website-checks-cli-${clientPackage.version}.tgz`,
        `packages/client/README.md: ./website-checks-cli-${clientPackage.version}.tgz`,
        'examples/README.md: node',
      ]),
    );
  });

  it('the unpublished client is never run by name from the registry', async () => {
    expect(PUBLISHED.has(CLIENT_PACKAGE) || LOCKED.has(CLIENT_PACKAGE)).toBe(false);
    expect(allowed(CLIENT_PACKAGE)).toBeUndefined();
    expect(allowed('website-checks')).toBeUndefined();
  });

  it('finds every form a document may use', () => {
    const specs = (text: string) => documentedSpecs(text).map(({ spec }) => spec);
    expect(specs('X402_PRIVATE_KEY=0x… npx website-checks-cli site-health example.com')).toEqual([
      'website-checks-cli',
    ]);
    expect(specs('npx --yes some-tool@2 --help')).toEqual(['some-tool@2']);
    expect(specs('npm exec --package=website-checks-cli -- website-checks-cli cert a.com')).toEqual([
      'website-checks-cli',
    ]);
    expect(specs('npm exec -- node examples/x.ts')).toEqual(['node']);
    expect(specs('npm install -g website-checks-cli # the client')).toEqual(['website-checks-cli']);
    expect(specs('`npm i ./website-checks-cli-1.0.0.tgz`')).toEqual(['./website-checks-cli-1.0.0.tgz']);
    expect(specs('npm install-scripts approve node')).toEqual([]); // manages approvals, installs nothing
    expect(allowed('website-checks-cli@1.0.0')).toBeUndefined();
    expect(allowed('./website-checks-cli-1.0.0.tgz')).toBe('local');
    expect(allowed('wrangler@4')).toBe('locked dependency');
  });
});
