/**
 * The few Workers runtime types the edge entry uses (`cloudflare:workers`, Durable Objects). The full
 * `@cloudflare/workers-types` redeclares the web globals that `@types/node` already declares for the
 * rest of the code base, so only these are declared here, as the runtime documents them.
 */
declare module 'cloudflare:workers' {
  export interface DurableObjectStorage {
    get<T>(key: string): Promise<T | undefined>;
    put<T>(key: string, value: T): Promise<void>;
    /** Up to 128 entries, written together or not at all. */
    put<T>(entries: Record<string, T>): Promise<void>;
    delete(key: string): Promise<boolean>;
    delete(keys: string[]): Promise<number>;
    deleteAll(): Promise<void>;
    /** Entries in key order (`reverse`: descending) from `start` (inclusive) to `end` (exclusive). */
    list<T>(options?: {
      prefix?: string;
      start?: string;
      end?: string;
      limit?: number;
      reverse?: boolean;
    }): Promise<Map<string, T>>;
    getAlarm(): Promise<number | null>;
    setAlarm(scheduledTime: number | Date): Promise<void>;
  }
  export interface DurableObjectState {
    readonly id: DurableObjectId;
    readonly storage: DurableObjectStorage;
    /** Resets the object: what it was running is cut off, its next call starts a new instance. */
    abort(reason?: string): void;
  }
  export interface ExecutionContext {
    waitUntil(promise: Promise<unknown>): void;
  }
  export abstract class DurableObject<Env = unknown> {
    protected ctx: DurableObjectState;
    protected env: Env;
    constructor(ctx: DurableObjectState, env: Env);
  }
  /** A Durable Object reached over RPC: its public methods, each answering a promise. */
  export type DurableObjectStub<T> = {
    [K in keyof T]: T[K] extends (...args: infer A) => infer R ? (...args: A) => Promise<Awaited<R>> : never;
  };
  export interface DurableObjectId {
    toString(): string;
  }
  export interface DurableObjectNamespace<T> {
    idFromName(name: string): DurableObjectId;
    get(id: DurableObjectId): DurableObjectStub<T>;
  }
}
