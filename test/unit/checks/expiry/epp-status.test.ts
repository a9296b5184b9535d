/** RDAP status → EPP code mapping (RFC 8056 §2). */
import { describe, expect, it } from 'vitest';
import { toEppStatus, toEppStatuses } from '../../../../src/checks/expiry/epp-status.ts';

// RFC 8056 §2, the whole table: EPP code ← RDAP value.
const RFC_8056_TABLE: [string, string][] = [
  ['addPeriod', 'add period'],
  ['autoRenewPeriod', 'auto renew period'],
  ['clientDeleteProhibited', 'client delete prohibited'],
  ['clientHold', 'client hold'],
  ['clientRenewProhibited', 'client renew prohibited'],
  ['clientTransferProhibited', 'client transfer prohibited'],
  ['clientUpdateProhibited', 'client update prohibited'],
  ['inactive', 'inactive'],
  ['linked', 'associated'],
  ['ok', 'active'],
  ['pendingCreate', 'pending create'],
  ['pendingDelete', 'pending delete'],
  ['pendingRenew', 'pending renew'],
  ['pendingRestore', 'pending restore'],
  ['pendingTransfer', 'pending transfer'],
  ['pendingUpdate', 'pending update'],
  ['redemptionPeriod', 'redemption period'],
  ['renewPeriod', 'renew period'],
  ['serverDeleteProhibited', 'server delete prohibited'],
  ['serverHold', 'server hold'],
  ['serverRenewProhibited', 'server renew prohibited'],
  ['serverTransferProhibited', 'server transfer prohibited'],
  ['serverUpdateProhibited', 'server update prohibited'],
  ['transferPeriod', 'transfer period'],
];

describe('toEppStatus', () => {
  it.each(RFC_8056_TABLE)('maps to %s from %j', (epp, rdap) => {
    expect(toEppStatus(rdap)).toBe(epp);
  });

  it.each([
    ['Client Transfer Prohibited', 'clientTransferProhibited'],
    ['clientTransferProhibited', 'clientTransferProhibited'],
    ['ClientHold', 'clientHold'],
    ['clientHold https://icann.org/epp#clientHold', 'clientHold'],
    ['  server_hold ', 'serverHold'],
    ['ACTIVE', 'ok'],
    ['transfer prohibited', 'transferProhibited'],
  ])('tolerates %j → %s', (rdap, epp) => {
    expect(toEppStatus(rdap)).toBe(epp);
  });
});

describe('toEppStatuses', () => {
  it('keeps order and drops duplicates and blanks', () => {
    expect(toEppStatuses(['client hold', 'clientHold', '', 'active', 'server hold'])).toEqual([
      'clientHold',
      'ok',
      'serverHold',
    ]);
  });
});
