import { Client, Notification, Pool } from 'pg';
import { pgQuery } from '../database/postgres.query';
import { sql } from '../database/sql.dialect';
import { Disbursement } from '../disbursements/disbursement.model';
import { DisbursementEvents } from '../disbursements/disbursement.ports';
import { PubSubEvents } from './pubsub.events';

export interface PostgresEventsOptions {
  /** DATABASE_URL: the listening connection is one of its own, outside the pool. */
  url: string;
  /** Reads a record too long for its notification. */
  pool: Pool;
  /** Told of a lost listening connection (it is opened again) or a notification that could not be read. */
  onError?: (error: Error) => void;
}

/** The channel the change log's trigger notifies on (postgres.migrations.ts). */
const CHANNEL = 'payout_changes';

interface Note {
  m: string;
  p: string | number;
  r?: Disbursement;
}

/**
 * Changes heard from every replica: each change-log insert notifies at commit, in commit order, and
 * this process's one listening connection hands each to its own watchers (PubSubEvents). While that
 * connection is down it is opened again, every second at most; `listening` waits for it.
 */
export class PostgresEvents implements DisbursementEvents {
  /** The watchers of this process. */
  private readonly local = new PubSubEvents();
  private client?: Client;
  private ready: Promise<void>;
  private setReady: () => void = () => undefined;
  private closed = false;
  private retry?: NodeJS.Timeout;
  /** The connection attempt under way, which close() waits for. */
  private connecting: Promise<void> = Promise.resolve();
  /** Notifications handled one after another, so a record read from the table keeps its place. */
  private chain: Promise<void> = Promise.resolve();

  constructor(private readonly opts: PostgresEventsOptions) {
    this.ready = this.waitReady();
    this.connecting = this.connect();
  }

  watch(merchantId: string, referenceId: string): AsyncIterable<Disbursement> {
    return this.local.watch(merchantId, referenceId);
  }

  watchMerchant(merchantId: string): AsyncIterable<Disbursement> {
    return this.local.watchMerchant(merchantId);
  }

  listening(): Promise<void> {
    return this.ready;
  }

  merchantListening(): Promise<void> {
    return this.ready;
  }

  async healthy(): Promise<boolean> {
    return this.client !== undefined;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    await this.connecting;
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
    await this.chain;
  }

  private waitReady(): Promise<void> {
    return new Promise((resolve) => (this.setReady = resolve));
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    const client = new Client({ connectionString: this.opts.url, connectionTimeoutMillis: 2000 });
    client.on('notification', (note) => this.heard(note));
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client));
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANNEL}`);
    } catch (error) {
      this.lost(client, error as Error);
      return;
    }
    if (this.closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    this.setReady();
  }

  private lost(client: Client, error?: Error): void {
    if (error) this.opts.onError?.(error);
    client.removeAllListeners('end');
    void client.end().catch(() => undefined);
    if (this.closed || (this.client !== undefined && this.client !== client)) return;
    if (this.client === client) {
      this.client = undefined;
      this.ready = this.waitReady();
    }
    clearTimeout(this.retry);
    this.retry = setTimeout(() => {
      this.connecting = this.connect();
    }, 1000);
    this.retry.unref();
  }

  private heard(note: Notification): void {
    if (note.channel !== CHANNEL || !note.payload) return;
    const parsed = JSON.parse(note.payload) as Note;
    this.chain = this.chain
      .then(async () => {
        const record = parsed.r ?? (await this.read(parsed.m, String(parsed.p)));
        if (record) await this.local.publish(record);
      })
      .catch((error: unknown) => this.opts.onError?.(error as Error));
  }

  private async read(merchantId: string, position: string): Promise<Disbursement | undefined> {
    const { rows } = await pgQuery<{ record: string }>(
      this.opts.pool,
      sql`SELECT record FROM payout_changes WHERE merchant_id = ${merchantId} AND position = ${position}`,
    );
    return rows[0] && (JSON.parse(rows[0].record) as Disbursement);
  }
}
