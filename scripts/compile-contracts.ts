/**
 * Compiles the test contracts (contracts/*.sol) with the pinned solc-js and writes their runtime
 * artifacts to contracts/build/. Deterministic: same sources and compiler, byte-identical output.
 */
import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import solc from 'solc';

/** The contracts compiled, by name; each lives in `contracts/<name>.sol`. */
export const CONTRACT_NAMES = ['TestUSDC', 'Multicall3'] as const;

export type ContractName = (typeof CONTRACT_NAMES)[number];

const CONTRACTS_DIR = new URL('../contracts/', import.meta.url);

// Cancun: supported by anvil 1.7 (its default hardfork is newer) and by every solc 0.8.24+.
const EVM_VERSION = 'cancun';
const OPTIMIZER_RUNS = 200;

/** What `contracts/build/<name>.json` holds. `deployedBytecode` is runtime code, for anvil_setCode. */
export interface ContractArtifact {
  abi: unknown[];
  deployedBytecode: `0x${string}`;
  solcVersion: string;
  /** SHA-256 of the .sol source text, hex. */
  sourceHash: string;
}

interface SolcOutput {
  errors?: { severity: 'error' | 'warning' | 'info'; formattedMessage: string }[];
  contracts?: Record<
    string,
    Record<string, { abi: unknown[]; evm: { deployedBytecode: { object: string } } }>
  >;
}

/** Where the artifact of `name` is written. */
export function artifactUrl(name: ContractName): URL {
  return new URL(`build/${name}.json`, CONTRACTS_DIR);
}

/** Compiles every contract and returns each artifact's exact file text. Throws on a compile error. */
export async function renderArtifacts(): Promise<Record<ContractName, string>> {
  const sources: Record<string, { content: string }> = {};
  for (const name of CONTRACT_NAMES) {
    sources[`${name}.sol`] = { content: await readFile(new URL(`${name}.sol`, CONTRACTS_DIR), 'utf8') };
  }
  const input = {
    language: 'Solidity',
    sources,
    settings: {
      evmVersion: EVM_VERSION,
      optimizer: { enabled: true, runs: OPTIMIZER_RUNS },
      // No CBOR metadata tail: the bytecode then depends on the code alone, not on paths or comments.
      metadata: { appendCBOR: false, bytecodeHash: 'none' },
      outputSelection: { '*': { '*': ['abi', 'evm.deployedBytecode.object'] } },
    },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as SolcOutput;
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) {
    throw new Error(`solc failed:\n${errors.map((e) => e.formattedMessage).join('\n')}`);
  }
  const solcVersion = String(solc.version());
  const rendered = {} as Record<ContractName, string>;
  for (const name of CONTRACT_NAMES) {
    const file = `${name}.sol`;
    const compiled = output.contracts?.[file]?.[name];
    if (!compiled) throw new Error(`solc produced no output for ${name}`);
    const artifact: ContractArtifact = {
      abi: compiled.abi,
      deployedBytecode: `0x${compiled.evm.deployedBytecode.object}`,
      solcVersion,
      sourceHash: createHash('sha256')
        .update(sources[file]?.content ?? '')
        .digest('hex'),
    };
    rendered[name] = `${JSON.stringify(artifact, null, 2)}\n`;
  }
  return rendered;
}

if (import.meta.main) {
  const rendered = await renderArtifacts();
  for (const name of CONTRACT_NAMES) {
    await writeFile(artifactUrl(name), rendered[name]);
    console.log(`wrote ${artifactUrl(name).pathname}`);
  }
}
