import { describe, expect, it } from 'vitest';
import {
  freeOperations,
  isPaidWatchOperation,
  paidOperations,
  watchOperations,
} from '../../../../src/catalog.ts';
import { LIFETIME_FACTS } from '../../../../src/checks/site-health/lifetime-note.ts';
import { DOCUMENTATION } from '../../../../src/http/discovery/documentation.ts';
import { createDiscoveryApp, isPublicUrl, PUBLIC_BASE_URL } from './discovery-app.ts';

async function fetchLlmsTxt(): Promise<{ response: Response; text: string; lines: string[] }> {
  const response = await createDiscoveryApp().request('/llms.txt');
  const text = await response.clone().text();
  return { response, text, lines: text.split('\n') };
}

const LINK_ITEM = /^- \[([^\]]+)\]\(([^)\s]+)\)(: .+)?$/;

describe('GET /llms.txt (llmstxt.org)', () => {
  it('is served as text/markdown in UTF-8', async () => {
    const { response } = await fetchLlmsTxt();
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
  });

  it('opens with the only H1, followed by a blockquote summary', async () => {
    const { lines } = await fetchLlmsTxt();
    expect(lines[0]).toBe('# Website Checks');
    expect(lines.filter((line) => /^# /.test(line))).toHaveLength(1);
    const firstContent = lines.slice(1).find((line) => line.trim() !== '');
    expect(firstContent).toMatch(/^> \S/);
  });

  it('ends with H2 sections whose bodies are only [name](url) lists of absolute URLs', async () => {
    const { lines } = await fetchLlmsTxt();
    const firstH2 = lines.findIndex((line) => line.startsWith('## '));
    expect(firstH2).toBeGreaterThan(0);
    // Before the first H2 there is no other heading (details are paragraphs and lists).
    expect(lines.slice(1, firstH2).some((line) => /^#{1,6} /.test(line))).toBe(false);
    const sections = lines.slice(firstH2).filter((line) => line.startsWith('## '));
    expect(sections).toEqual(['## API', '## MCP', '## Optional']);
    let links = 0;
    for (const line of lines.slice(firstH2)) {
      if (line === '' || line.startsWith('## ')) continue;
      const match = LINK_ITEM.exec(line);
      expect(match, line).not.toBeNull();
      expect(isPublicUrl(match?.[2] ?? '')).toBe(true);
      links += 1;
    }
    expect(links).toBeGreaterThanOrEqual(10);
  });

  it('explains the x402 v2 payment in five steps with the three headers', async () => {
    const { text } = await fetchLlmsTxt();
    for (const step of [1, 2, 3, 4, 5]) expect(text).toMatch(new RegExp(`^${step}\\. `, 'm'));
    expect(text).not.toMatch(/^6\. /m);
    for (const header of ['PAYMENT-REQUIRED', 'PAYMENT-SIGNATURE', 'PAYMENT-RESPONSE'])
      expect(text).toContain(header);
  });

  it('lists each operation with its price and a curl example, and every MCP tool', async () => {
    const { text } = await fetchLlmsTxt();
    for (const operation of paidOperations) {
      expect(text).toContain(`\`${operation.method} ${operation.route}\` ($${operation.priceUsd}`);
      expect(text).toContain(`curl -i '${PUBLIC_BASE_URL}${operation.route}?domain=example.com'`);
      expect(text).toContain(`\`${operation.tool}\` ($${operation.priceUsd})`);
    }
    for (const operation of freeOperations) expect(text).toContain(`\`${operation.tool}\` (free)`);
    expect(text).toContain(`curl -i '${PUBLIC_BASE_URL}/v1/validate?domain=example.com'`);
    expect(text).toContain(`${PUBLIC_BASE_URL}/mcp`);
  });

  it('carries every 64-day certificate fact', async () => {
    const { text } = await fetchLlmsTxt();
    for (const fact of LIFETIME_FACTS) expect(text).toContain(`- ${fact}`);
  });

  it('names the reference documentation by its repository path', async () => {
    const { text } = await fetchLlmsTxt();
    expect(DOCUMENTATION.length).toBeGreaterThan(5);
    for (const { path, about } of DOCUMENTATION) expect(text).toContain(`- \`${path}\`: ${about}`);
  });
});

describe('watches in /llms.txt', () => {
  it('lists each watch operation with its price and tool, the POST example and the MCP tools', async () => {
    const { text, lines } = await fetchLlmsTxt();
    for (const operation of watchOperations) {
      const path = operation.route.replace(':watch_id', '{watch_id}');
      const line = lines.find((candidate) => candidate.startsWith(`- \`${operation.method} ${path}\``));
      expect(line, operation.id).toContain(`MCP tool \`${operation.tool}\``);
      expect(line).toContain(isPaidWatchOperation(operation) ? '$0.10 per 30 days, pro rata' : '(free');
    }
    expect(text).toContain(`curl -i -X POST '${PUBLIC_BASE_URL}/v1/watches'`);
    expect(text).toMatch(/Standard Webhooks 1\.0/);
    const mcp = lines.find((line) => line.startsWith('**MCP:**')) ?? '';
    for (const operation of watchOperations) expect(mcp).toContain(`\`${operation.tool}\``);
  });
});
