/** The typed client API of `website-checks-cli`; the command line is built on it. */
export {
  type CheckResult,
  type ClientOptions,
  createClient,
  DEFAULT_MAX_USD,
  DEFAULT_SERVICE_URL,
  PaymentError,
  type Receipt,
  type SignedPayment,
  ServiceUnreachableError,
  type WatchRequest,
  type WebsiteChecksClient,
} from './client.ts';
export {
  type Command,
  type CommandName,
  COMMANDS,
  WATCH_COMMANDS,
  type WatchCommand,
  type WatchCommandName,
} from './commands.ts';
