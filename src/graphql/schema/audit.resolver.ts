import { Arg, Ctx, Int, Query, Resolver } from 'type-graphql';
import { CHECKPOINTS_LISTED } from '../../disbursements/audit.checkpoint-list';
import { AuditCheckpoint as Checkpoint } from '../../disbursements/audit.keys';
import { MAX_AUDIT_PAGE } from '../../disbursements/audit.trail';
import { badInput } from '../../disbursements/disbursement.errors';
import { AuditCheckpoint, AuditConnection, AuditFilter, AuditVerification } from './audit.type';
import { GatewayContext } from '../gateway.context';

/** base64url of `audit:<sequence>`: opaque to clients. */
const cursorOf = (sequence: number) => Buffer.from(`audit:${sequence}`).toString('base64url');

function sequenceOf(cursor: string): number {
  const match = /^audit:(\d{1,15})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match) throw badInput('after is not a cursor this gateway gave out', ['after']);
  return Number(match[1]);
}

const checkpointView = (c: Checkpoint): AuditCheckpoint => ({
  sequence: c.sequence,
  hash: c.hash,
  at: new Date(c.at),
  signature: c.signature,
  keyId: c.keyId,
});

@Resolver(() => AuditConnection)
export class AuditResolver {
  @Query(() => AuditConnection, {
    description: `Your audit trail, oldest first, at most ${MAX_AUDIT_PAGE} entries a page. Needs the scope audit:read.`,
  })
  async auditTrail(
    @Arg('first', () => Int, { nullable: true, defaultValue: 50 }) first: number | null,
    @Arg('after', () => String, { nullable: true }) after: string | null,
    @Arg('filter', () => AuditFilter, { nullable: true }) filter: AuditFilter | null,
    @Ctx() ctx: GatewayContext,
  ): Promise<AuditConnection> {
    const page = await ctx.service.auditTrail(ctx.merchant, {
      first: first ?? 50,
      after: after ? sequenceOf(after) : undefined,
      filter: {
        referenceId: filter?.referenceId ?? undefined,
        actor: filter?.actor ?? undefined,
        actions: filter?.actions ?? undefined,
        from: filter?.from?.toISOString(),
        to: filter?.to?.toISOString(),
      },
    });
    const edges = page.entries.map((entry) => ({
      cursor: cursorOf(entry.sequence),
      node: { ...entry, at: new Date(entry.at) },
    }));
    return { edges, pageInfo: { hasNextPage: page.hasMore, endCursor: edges.at(-1)?.cursor } };
  }

  @Query(() => [AuditCheckpoint], {
    description: `Your latest ${CHECKPOINTS_LISTED} signed audit chain heads, newest first. Needs the scope audit:read.`,
  })
  async auditCheckpoints(@Ctx() ctx: GatewayContext): Promise<AuditCheckpoint[]> {
    const checkpoints = await ctx.service.auditCheckpoints(ctx.merchant);
    return checkpoints.map(checkpointView);
  }

  @Query(() => AuditVerification, {
    description:
      'Checks your whole audit chain now, with the gateway’s keys; reads every entry, so ask it when you mean to. Needs the scope audit:read.',
  })
  async auditVerification(@Ctx() ctx: GatewayContext): Promise<AuditVerification> {
    const { checkpoint, ...result } = await ctx.service.verifyAuditTrail(ctx.merchant);
    return { ...result, checkpoint: checkpoint && checkpointView(checkpoint) };
  }
}
