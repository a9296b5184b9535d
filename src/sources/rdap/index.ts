/** What the rest of the app may use from the RDAP sources. */
export {
  RDAP_BOOTSTRAP_SOURCE,
  RDAP_BOOTSTRAP_TTL_MS,
  type RdapBootstrap,
  type ServerMatch,
} from './bootstrap.ts';
export {
  createRdapClient,
  RDAP_CACHE_TTL_MS,
  type RdapAnswer,
  type RdapClient,
  type RdapClientDeps,
} from './client.ts';
export {
  RDAP_MAX_BYTES,
  RDAP_REGISTRAR_SOURCE,
  RDAP_REGISTRY_SOURCE,
  type RegistryAnswer,
} from './lookup.ts';
export type { RdapRegistration } from './registration.ts';
