/**
 * npm runs a dependency's install scripts only when package.json's `allowScripts` approves them
 * (`npm help install-scripts`). Every locked package with an install script is decided there: the
 * three the project needs approved, the others refused.
 */
import { describe, expect, it } from 'vitest';
import lock from '../../package-lock.json' with { type: 'json' };
import packageJson from '../../package.json' with { type: 'json' };

/** Locked packages whose install scripts the project needs, and why. */
const NEEDED = {
  node: 'installs the Node.js 24 binary that npm start, npm test and every script run on',
  esbuild: 'checks its platform binary (bundles the Worker and the client package)',
  workerd: 'checks its platform binary (runs the Worker locally and in tests)',
};

const withInstallScripts = Object.entries(lock.packages as Record<string, { hasInstallScript?: boolean }>)
  .filter(([, entry]) => entry.hasInstallScript)
  .map(([path]) => path.replace(/^(?:.*\/)?node_modules\//, ''));

describe('allowScripts', () => {
  it('decides every locked package that has an install script', () => {
    expect(withInstallScripts).toEqual(expect.arrayContaining(Object.keys(NEEDED)));
    expect(Object.keys(packageJson.allowScripts).sort()).toEqual([...new Set(withInstallScripts)].sort());
  });

  it('approves exactly the ones the project needs', () => {
    const approved = Object.entries(packageJson.allowScripts as Record<string, boolean>)
      .filter(([, allowed]) => allowed)
      .map(([name]) => name);
    expect(approved.sort()).toEqual(Object.keys(NEEDED).sort());
  });
});
