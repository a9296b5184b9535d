/**
 * The service's HTTP operations as this client calls them. The service's catalog is the source; a
 * test in the service's repository keeps this table equal to it.
 */

export interface Command {
  /** The command word, also the last segment of its route. */
  name: CommandName;
  route: `/v1/${string}`;
  /** Paid commands sign an x402 payment; `validate` is free. */
  paid: boolean;
  summary: string;
}

export type CommandName = 'cert' | 'dns' | 'expiry' | 'site-health' | 'validate';

export const COMMANDS: readonly Command[] = [
  {
    name: 'cert',
    route: '/v1/cert',
    paid: true,
    summary: 'certificate status from CT logs, with a live HTTPS probe',
  },
  {
    name: 'dns',
    route: '/v1/dns',
    paid: true,
    summary: 'NS, addresses, MX, SPF, DMARC, CAA, DNSSEC, MTA-STS, TLS-RPT',
  },
  {
    name: 'expiry',
    route: '/v1/expiry',
    paid: true,
    summary: 'registration expiry, registrar and EPP status from RDAP',
  },
  {
    name: 'site-health',
    route: '/v1/site-health',
    paid: true,
    summary: 'the three checks together, with a summary',
  },
  {
    name: 'validate',
    route: '/v1/validate',
    paid: false,
    summary: 'free: is the domain valid, and its normalized form',
  },
];

export function findCommand(name: string): Command | undefined {
  return COMMANDS.find((command) => command.name === name);
}

/**
 * The watch commands: buying a watch and extending it (paid, JSON body), and managing it (free),
 * each with the watch's token or the sign-in of the wallet that paid for it; listing a wallet's
 * watches takes the sign-in only.
 */
export interface WatchCommand {
  name: WatchCommandName;
  method: 'POST' | 'GET' | 'DELETE';
  /** `{watch_id}` stands for the watch's id. */
  route:
    | '/v1/watches'
    | '/v1/watches/{watch_id}'
    | '/v1/watches/{watch_id}/extend'
    | '/v1/watches/{watch_id}/rotate-secret'
    | '/v1/watches/{watch_id}/rotate-token';
  paid: boolean;
  summary: string;
}

export type WatchCommandName =
  | 'watch'
  | 'watch-status'
  | 'watch-cancel'
  | 'watch-extend'
  | 'watch-list'
  | 'watch-rotate-secret'
  | 'watch-rotate-token';

export const WATCH_COMMANDS: readonly WatchCommand[] = [
  {
    name: 'watch',
    method: 'POST',
    route: '/v1/watches',
    paid: true,
    summary: 'buy a watch: an event each time the site-health state changes',
  },
  {
    name: 'watch-status',
    method: 'GET',
    route: '/v1/watches/{watch_id}',
    paid: false,
    summary: "free: a watch's state, events and deliveries",
  },
  {
    name: 'watch-cancel',
    method: 'DELETE',
    route: '/v1/watches/{watch_id}',
    paid: false,
    summary: 'free: end a watch now, no refund',
  },
  {
    name: 'watch-extend',
    method: 'POST',
    route: '/v1/watches/{watch_id}/extend',
    paid: true,
    summary: "move an active watch's end --days later (pro-rata price)",
  },
  {
    name: 'watch-list',
    method: 'GET',
    route: '/v1/watches',
    paid: false,
    summary: "free: the paying wallet's watches, newest first (signs in with its key)",
  },
  {
    name: 'watch-rotate-secret',
    method: 'POST',
    route: '/v1/watches/{watch_id}/rotate-secret',
    paid: false,
    summary: 'free: a new webhook secret for a watch (the old one signs watch.secret_rotated)',
  },
  {
    name: 'watch-rotate-token',
    method: 'POST',
    route: '/v1/watches/{watch_id}/rotate-token',
    paid: false,
    summary: 'free: a new token for a watch; the old one stops working',
  },
];

export function findWatchCommand(name: string): WatchCommand | undefined {
  return WATCH_COMMANDS.find((command) => command.name === name);
}

/** The table's entry of `name` (every `WatchCommandName` has one). */
export function watchCommand(name: WatchCommandName): WatchCommand {
  const command = findWatchCommand(name);
  if (!command) throw new TypeError(`Unknown watch command: ${name}`);
  return command;
}
