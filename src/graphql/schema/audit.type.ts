import { Field, InputType, Int, ObjectType, registerEnumType } from 'type-graphql';
import { AUDIT_ACTIONS, AuditAction } from '../../disbursements/audit.entry';
import { DecimalScalar } from './decimal.scalar';
import { DisbursementStatus } from './disbursement.enums';

// Generated from the domain's list of actions, so no action is missing from the schema's words.
registerEnumType(AuditAction, {
  name: 'AuditAction',
  description: `What an audit entry records, one of: ${Object.keys(AUDIT_ACTIONS).join(', ')}.`,
  valuesConfig: Object.fromEntries(
    Object.entries(AUDIT_ACTIONS).map(([action, meaning]) => [
      action,
      { description: `${meaning[0].toUpperCase()}${meaning.slice(1)}.` },
    ]),
  ),
});

@ObjectType({
  description:
    "One decision or event about money. Each merchant's entries are numbered from 1 without gaps, each `hash` covering the one before: `npm run audit:verify` recomputes the chain.",
})
export class AuditEntry {
  @Field(() => Int)
  sequence!: number;

  @Field(() => Date)
  at!: Date;

  @Field(() => String, {
    nullable: true,
    description: "Who did it (a JWT's sub, or a shared token's name); null for the provider and the gateway.",
  })
  actor?: string | null;

  @Field(() => AuditAction)
  action!: AuditAction;

  @Field(() => String, { nullable: true, description: 'The payout it is about, when it is about one.' })
  referenceId?: string | null;

  @Field(() => DisbursementStatus, { nullable: true, description: "The payout's status after the entry." })
  status?: DisbursementStatus | null;

  @Field(() => DecimalScalar, { nullable: true })
  amount?: string | null;

  @Field(() => String, { nullable: true })
  currency?: string | null;

  @Field(() => String, { nullable: true })
  detail?: string | null;

  @Field(() => String, { description: "Hex sha256 over `previousHash`, a newline and the entry's canonical content." })
  hash!: string;

  @Field(() => String, { description: "The previous entry's hash; 64 zeros for a merchant's first entry." })
  previousHash!: string;

  @Field(() => String, {
    nullable: true,
    description:
      'The id of the audit key that keyed it (as `AuditCheckpoint.keyId`); null for entries written before key ids were recorded.',
  })
  keyId?: string | null;
}

@ObjectType({
  description:
    'A signed chain head: the gateway\'s Ed25519 signature over the JSON array ["payout-gateway audit checkpoint v1", merchantId, sequence, hash, at]. `npm run audit:verify` checks the chain still passes through it; keep them outside the database with `npm run audit:checkpoint`.',
})
export class AuditCheckpoint {
  @Field(() => Int, { description: 'The last entry it signs.' })
  sequence!: number;

  @Field(() => String, { description: "That entry's hash." })
  hash!: string;

  @Field(() => Date, { description: 'When it was signed.' })
  at!: Date;

  @Field(() => String, { description: 'base64url Ed25519 signature.' })
  signature!: string;

  @Field(() => String, {
    nullable: true,
    description:
      "The signing key's id: base64url of sha256 over its public key (SPKI DER), the first 16 characters. Null for checkpoints signed before key ids were recorded.",
  })
  keyId?: string | null;
}

@ObjectType({
  description:
    'Your whole audit chain checked by the gateway with its own keys, as `npm run audit:verify` checks it (links, hashes, keyed values, the head, the newest checkpoints); payouts are compared by audit:verify only.',
})
export class AuditVerification {
  @Field(() => Boolean)
  verified!: boolean;

  @Field(() => Int, { description: 'Entries that verified: all of them when verified.' })
  entries!: number;

  @Field(() => Int, { nullable: true, description: 'The sequence where the chain first fails.' })
  brokenAt?: number;

  @Field(() => String, {
    nullable: true,
    description:
      'Why it fails there; or, when nothing fails but not everything could be checked, what the gateway has no key for (an audit key removed from AUDIT_SIGNING_KEY).',
  })
  reason?: string;

  @Field(() => AuditCheckpoint, { nullable: true, description: 'The newest signed head.' })
  checkpoint?: AuditCheckpoint;
}

@ObjectType()
export class AuditEdge {
  @Field(() => String, { description: 'Opaque; pass it as `after` for the entries after this one.' })
  cursor!: string;

  @Field(() => AuditEntry)
  node!: AuditEntry;
}

@ObjectType()
export class AuditPageInfo {
  @Field(() => Boolean)
  hasNextPage!: boolean;

  @Field(() => String, { nullable: true })
  endCursor?: string;
}

@ObjectType({ description: 'A page of your audit trail, oldest first.' })
export class AuditConnection {
  @Field(() => [AuditEdge])
  edges!: AuditEdge[];

  @Field(() => AuditPageInfo)
  pageInfo!: AuditPageInfo;
}

@InputType({ description: 'Conditions that all hold for every entry listed.' })
export class AuditFilter {
  @Field(() => String, { nullable: true })
  referenceId?: string;

  @Field(() => String, { nullable: true })
  actor?: string;

  @Field(() => [AuditAction], { nullable: true, description: 'Any of these actions.' })
  actions?: AuditAction[];

  @Field(() => Date, { nullable: true, description: 'At or after this time.' })
  from?: Date;

  @Field(() => Date, { nullable: true, description: 'At or before this time.' })
  to?: Date;
}
