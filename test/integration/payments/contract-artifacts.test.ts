/**
 * The committed contract artifacts are exactly what the sources compile to, and the TypeScript ABI
 * of the test token agrees with the compiled one.
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { artifactUrl, CONTRACT_NAMES, renderArtifacts } from '../../../scripts/compile-contracts.ts';
import { TEST_USDC_ABI } from '../../../src/payments/chain/local-contracts.ts';

interface AbiEntry {
  type: string;
  name?: string;
  stateMutability?: string;
  inputs?: readonly { type: string; indexed?: boolean }[];
  outputs?: readonly { type: string }[];
}

/** Kind, name, parameter types (with `indexed`), mutability and return types: what callers depend on. */
function describeEntry(entry: AbiEntry): string {
  const inputs = (entry.inputs ?? []).map((p) => `${p.type}${p.indexed ? ' indexed' : ''}`).join(',');
  const outputs = (entry.outputs ?? []).map((p) => p.type).join(',');
  return `${entry.type} ${entry.name}(${inputs}) ${entry.stateMutability ?? ''} -> (${outputs})`;
}

describe('contract artifacts', () => {
  it('match a fresh compile of contracts/*.sol byte for byte (run `npm run contracts` if not)', async () => {
    const rendered = await renderArtifacts();
    for (const name of CONTRACT_NAMES) {
      expect(await readFile(artifactUrl(name), 'utf8'), name).toBe(rendered[name]);
    }
  });

  it('give TestUSDC every function and event the TypeScript ABI declares', async () => {
    const artifact = JSON.parse(await readFile(artifactUrl('TestUSDC'), 'utf8')) as { abi: AbiEntry[] };
    const compiled = new Set(artifact.abi.map(describeEntry));
    expect(TEST_USDC_ABI.length).toBeGreaterThan(10);
    for (const item of TEST_USDC_ABI) expect(compiled).toContain(describeEntry(item));
  });

  it('carry runtime code without a constructor (anvil_setCode copies code only)', async () => {
    for (const name of CONTRACT_NAMES) {
      const artifact = JSON.parse(await readFile(artifactUrl(name), 'utf8')) as { abi: { type: string }[] };
      expect(artifact.abi.some((item) => item.type === 'constructor')).toBe(false);
    }
  });
});
