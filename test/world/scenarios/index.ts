/** Loads every scenario file in this folder, keyed by domain. */
import { readdir } from 'node:fs/promises';
import type { Scenario } from '../scenario.ts';

export async function loadScenarios(): Promise<Map<string, Scenario>> {
  const folder = new URL('./', import.meta.url);
  const files = (await readdir(folder)).filter((name) => name.endsWith('.ts') && name !== 'index.ts');
  const scenarios = new Map<string, Scenario>();
  for (const file of files.sort()) {
    const { default: scenario } = (await import(new URL(file, folder).href)) as { default: Scenario };
    scenarios.set(scenario.domain, scenario);
  }
  return scenarios;
}
