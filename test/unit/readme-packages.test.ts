/**
 * No documentation line may run a package this project does not own: `npx` only ever names the
 * project's published client, never the unrelated `website-checks` package; `npm install` names
 * only packages the project already depends on.
 */
import { readdir, readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import packageJson from '../../package.json' with { type: 'json' };
import clientPackage from '../../packages/client/package.json' with { type: 'json' };
import { CLIENT_PACKAGE } from '../../src/http/discovery/home-page.ts';

const ROOT = new URL('../../', import.meta.url);

async function documents(): Promise<string[]> {
  const examples = (await readdir(new URL('examples/', ROOT), { recursive: true })).map(
    (file) => `examples/${file}`,
  );
  return [
    'README.md',
    'packages/client/README.md',
    'src/http/discovery/home-page.ts',
    'src/startup-messages.ts',
    ...examples.filter((file) => /\.(md|ts|sh|py|go)$/.test(file)),
  ];
}

const DEPENDENCIES = new Set([
  ...Object.keys(packageJson.dependencies),
  ...Object.keys(packageJson.devDependencies),
]);

describe('documented commands', () => {
  it('name the client package the project publishes, which is not the unrelated website-checks', () => {
    expect(clientPackage.name).toBe(CLIENT_PACKAGE);
    expect(Object.keys(clientPackage.bin)).toEqual([CLIENT_PACKAGE]);
    expect(CLIENT_PACKAGE).not.toBe('website-checks');
    expect(packageJson.private).toBe(true);
    expect('bin' in packageJson).toBe(false);
  });

  it('run with npx only the project client, and npm-install only what the project depends on', async () => {
    const seen: string[] = [];
    for (const file of await documents()) {
      const text = await readFile(new URL(file, ROOT), 'utf8');
      for (const [, name] of text.matchAll(/\bnpx\s+(?:--?[\w-]+(?:=\S+)?\s+)*([@\w./-]+)/g)) {
        seen.push(`${file}: npx ${name}`);
        expect(name, `${file} runs npx ${name}`).toBe(CLIENT_PACKAGE);
      }
      for (const [, args] of text.matchAll(/\bnpm (?:install|i|add)\b([^\n`]*)/g)) {
        for (const name of (args ?? '').split(/\s+/).filter((arg) => arg && !arg.startsWith('-'))) {
          if (name === '<pkg>') continue;
          const allowed = DEPENDENCIES.has(name) || /^@foundry-rs\/anvil-<os>-<arch>$/.test(name);
          expect(allowed, `${file} installs ${name}`).toBe(true);
        }
      }
    }
    expect(seen.length).toBeGreaterThan(3); // the scan does find the README's npx lines
  });
});
