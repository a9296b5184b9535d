/** The steered fetch and the one SSRF address policy: what the rest of the app may use. */
export { type AddressVerdict, classifyAddress, isPermittedAddress } from './address-policy.ts';
export {
  type ConnectTarget,
  connectSocket,
  createNodeTransport,
  type SocketConnector,
} from './node-transport.ts';
export {
  createPublicFetch,
  MAX_REDIRECTS,
  type PinnedExchange,
  type PinnedTransport,
  type PublicFetchDeps,
  withoutCredentials,
} from './public-fetch.ts';
export { OutboundRefusal } from './outbound-refusal.ts';
