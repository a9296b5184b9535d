/**
 * Parses an RDAP domain object (RFC 9083 §5.3, ICANN gTLD profile) into typed registration data.
 * Tolerant: unknown members and malformed array items are ignored, names are lower-cased.
 */
import { z } from 'zod';
import { withoutCredentials } from '../public-fetch/public-fetch.ts';

/** Registration data from one RDAP domain object. */
export interface RdapRegistration {
  /** The domain as the server wrote it, lower case (Verisign writes `EXAMPLE.COM`). */
  ldhName: string | null;
  registrar: { name: string | null; ianaId: string | null };
  registeredAt: Date | null;
  /** The `expiration` event; null when the registry does not publish one (e.g. `.no`). */
  expiresAt: Date | null;
  /** The `last changed` event: the domain's last change; null without one. */
  updatedAt: Date | null;
  /**
   * The `last update of RDAP database` event: when the server's database was last refreshed
   * (RFC 9083 §4.5), never a change of the domain.
   */
  rdapUpdatedAt: Date | null;
  /** Status values as written (RFC 8056 §2 strings such as `client transfer prohibited`). */
  status: string[];
  /** Nameserver host names, lower case, without a trailing dot. */
  nameservers: string[];
  delegationSigned: boolean;
  /**
   * The registrar's RDAP URL for the same domain (`links[]` with `rel: related`), if any, without
   * credentials. Untrusted: fetch it only through the steered fetch (`public-fetch`).
   */
  referral: URL | null;
}

/** An array whose malformed items are dropped instead of failing the whole object. */
function lenientArray<T extends z.ZodType>(item: T) {
  return z
    .array(z.unknown())
    .optional()
    .transform((items) =>
      (items ?? []).flatMap((raw) => {
        const parsed = item.safeParse(raw);
        return parsed.success ? [parsed.data as z.output<T>] : [];
      }),
    );
}

const linkSchema = z.object({ rel: z.string().optional(), href: z.string(), type: z.string().optional() });
const eventSchema = z.object({ eventAction: z.string(), eventDate: z.string() });
const publicIdSchema = z.object({ type: z.string(), identifier: z.union([z.string(), z.number()]) });
// RFC 7095 jCard: ["vcard", [[name, params, value-type, value], …]].
const vcardSchema = z.tuple([
  z.literal('vcard'),
  lenientArray(z.tuple([z.string(), z.unknown(), z.string(), z.unknown()])),
]);
const entitySchema = z.object({
  roles: lenientArray(z.string()),
  publicIds: lenientArray(publicIdSchema),
  vcardArray: z.unknown().optional(),
});

const domainSchema = z.object({
  objectClassName: z.string().optional(),
  ldhName: z.string().optional(),
  status: lenientArray(z.string()),
  entities: lenientArray(entitySchema),
  events: lenientArray(eventSchema),
  links: lenientArray(linkSchema),
  nameservers: lenientArray(z.object({ ldhName: z.string() })),
});

// RFC 9083 §5.3; `dsData`/`keyData` are only present for a signed delegation.
const secureDnsSchema = z.object({
  delegationSigned: z.boolean().optional(),
  dsData: z.array(z.unknown()).optional(),
  keyData: z.array(z.unknown()).optional(),
});

const rdapDateSchema = z.iso.datetime({ offset: true, local: true });

/** Parses a domain object; returns a reason string when the body is not one. */
export function parseRegistration(json: unknown): RdapRegistration | string {
  const parsed = domainSchema.safeParse(json);
  if (!parsed.success) return 'the answer is not an RDAP domain object';
  const domain = parsed.data;
  if (domain.objectClassName !== undefined && domain.objectClassName.toLowerCase() !== 'domain') {
    return `the answer is an RDAP ${domain.objectClassName} object, not a domain`;
  }
  const eventDate = (action: string) => {
    const event = domain.events.find((e) => eventName(e.eventAction) === action);
    return event ? parseRdapDate(event.eventDate) : null;
  };
  const registrar = domain.entities.find((e) => e.roles.some((role) => role.toLowerCase() === 'registrar'));
  return {
    ldhName: domain.ldhName ? hostName(domain.ldhName) : null,
    registrar: {
      name: registrar ? vcardName(registrar.vcardArray) : null,
      ianaId: registrar ? ianaRegistrarId(registrar.publicIds) : null,
    },
    registeredAt: eventDate('registration'),
    expiresAt: eventDate('expiration'),
    updatedAt: eventDate('last changed'),
    rdapUpdatedAt: eventDate('last update of rdap database'),
    status: domain.status,
    nameservers: [...new Set(domain.nameservers.map((ns) => hostName(ns.ldhName)))],
    delegationSigned: delegationSigned(json as Record<string, unknown>),
    referral: registrarReferral(domain.links),
  };
}

// Spellings seen in real answers for the IANA event actions this parser reads (RFC 9083 §4.5).
const EVENT_ALIASES: Readonly<Record<string, string>> = {
  expiry: 'expiration',
  creation: 'registration',
  created: 'registration',
  'last modified': 'last changed',
};

/**
 * An event action in the IANA registry's spelling: lower case, `_`/`-` as spaces, a trailing
 * ` date` dropped (`Expiration Date` → `expiration`), and the aliases above.
 */
export function eventName(action: string): string {
  const words = action
    .trim()
    .toLowerCase()
    .replace(/[\s_-]+/g, ' ')
    .replace(/ date$/, '');
  return EVENT_ALIASES[words] ?? words;
}

/**
 * DNSSEC from `secureDNS`, whose name AFNIC spells `secureDns`: the member is matched
 * case-insensitively, and DS or key data count as a signed delegation whatever the flag says.
 */
function delegationSigned(domain: Record<string, unknown>): boolean {
  const key = Object.keys(domain).find((name) => name.toLowerCase() === 'securedns');
  const parsed = secureDnsSchema.safeParse(key === undefined ? undefined : domain[key]);
  if (!parsed.success) return false;
  const { delegationSigned: flag, dsData = [], keyData = [] } = parsed.data;
  return flag === true || dsData.length > 0 || keyData.length > 0;
}

/**
 * Parses an RDAP date (RFC 3339, with or without fractional seconds or an offset, and the
 * `+0000` offsets some servers write); null when invalid.
 */
export function parseRdapDate(raw: string): Date | null {
  const text = raw.trim().replace(/([+-]\d{2})(\d{2})$/, '$1:$2');
  if (!rdapDateSchema.safeParse(text).success) return null;
  // A date without an offset breaks RFC 3339; read it as UTC rather than the process's zone.
  const hasOffset = /(?:Z|[+-]\d{2}:\d{2})$/i.test(text);
  return new Date(hasOffset ? text : `${text}Z`);
}

function hostName(text: string): string {
  return text.toLowerCase().replace(/\.$/, '');
}

/** The registrar's name: the jCard `fn`, else `org` (RFC 6350 §6.2.1, §6.6.4). */
function vcardName(vcardArray: unknown): string | null {
  const vcard = vcardSchema.safeParse(vcardArray);
  if (!vcard.success) return null;
  const property = (wanted: string) =>
    vcard.data[1]
      .flatMap(([name, , , value]) => (name.toLowerCase() === wanted ? [textOf(value)] : []))
      .find((text) => text !== '') ?? null;
  return property('fn') ?? property('org');
}

/** A jCard text value; a structured one (`org` as `["Name", "Unit"]`, RFC 7095 §3.3.1.3) gives its first part. */
function textOf(value: unknown): string {
  const first = Array.isArray(value) ? value[0] : value;
  return typeof first === 'string' ? first.trim() : '';
}

function ianaRegistrarId(publicIds: readonly { type: string; identifier: string | number }[]): string | null {
  const id = publicIds.find((p) => p.type.toLowerCase() === 'iana registrar id');
  return id ? String(id.identifier) : null;
}

// ICANN gTLD RDAP Response Profile: the registry links to the registrar's RDAP record with rel "related".
function registrarReferral(links: readonly z.infer<typeof linkSchema>[]): URL | null {
  const link = links.find(
    (l) =>
      l.rel?.toLowerCase() === 'related' &&
      l.type?.toLowerCase().split(';')[0]?.trim() === 'application/rdap+json',
  );
  if (!link || !URL.canParse(link.href)) return null;
  const url = withoutCredentials(new URL(link.href));
  return url.protocol === 'https:' || url.protocol === 'http:' ? url : null;
}
