import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import {
  INITIALIZE_PROTOCOL_VERSIONS,
  LEGACY_PROTOCOL_VERSION,
  SERVED_PROTOCOL_VERSIONS,
} from '../../../src/vocabulary/mcp-protocol-versions.ts';

describe('the protocol revisions the documents list', () => {
  it('are the SDK’s initialize revisions, in its order, after 2026-07-28', () => {
    expect(INITIALIZE_PROTOCOL_VERSIONS).toEqual(SUPPORTED_PROTOCOL_VERSIONS);
    expect(SERVED_PROTOCOL_VERSIONS).toEqual(['2026-07-28', ...SUPPORTED_PROTOCOL_VERSIONS]);
  });

  it('name the SDK’s newest initialize revision as the 2025-era one', () => {
    expect(LEGACY_PROTOCOL_VERSION).toBe(LATEST_PROTOCOL_VERSION);
  });
});
