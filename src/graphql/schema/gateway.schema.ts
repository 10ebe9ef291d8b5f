import 'reflect-metadata';
import { GraphQLSchema, lexicographicSortSchema, printSchema } from 'graphql';
import { buildSchemaSync } from 'type-graphql';
import { createPubSub } from '@graphql-yoga/subscription';
import { DisbursementSubscriptionResolver } from './disbursement-subscription.resolver';
import { DisbursementResolver } from './disbursement.resolver';
import { WalletResolver } from './wallet.resolver';
import { DisbursementBatchResolver } from './disbursement-batch.resolver';
import { DisbursementHistoryResolver } from './disbursement-history.resolver';
import { InputValidationOptions } from './disbursement.validation';
import { DisbursementApprovalResolver } from './disbursement-approval.resolver';
import { AuditResolver } from './audit.resolver';
import { FinanceResolver } from './finance.resolver';
import { BeneficiaryResolver } from './beneficiary.resolver';

/**
 * The schema, built from the type-graphql classes; `schema.graphql` is its printed, committed form.
 * The resolvers are built here, with their settings, and handed to type-graphql as its container.
 */
export function buildGatewaySchema(
  inputValidation: InputValidationOptions = { allowPrivateNetworks: false },
): GraphQLSchema {
  const resolvers = new Map<unknown, object>([
    [DisbursementResolver, new DisbursementResolver(inputValidation)],
    [DisbursementSubscriptionResolver, new DisbursementSubscriptionResolver()],
    [WalletResolver, new WalletResolver()],
    [DisbursementBatchResolver, new DisbursementBatchResolver(inputValidation)],
    [DisbursementHistoryResolver, new DisbursementHistoryResolver()],
    [DisbursementApprovalResolver, new DisbursementApprovalResolver()],
    [AuditResolver, new AuditResolver()],
    [FinanceResolver, new FinanceResolver()],
    [BeneficiaryResolver, new BeneficiaryResolver(inputValidation)],
  ]);
  return buildSchemaSync({
    resolvers: [
      DisbursementResolver,
      DisbursementSubscriptionResolver,
      WalletResolver,
      DisbursementBatchResolver,
      DisbursementHistoryResolver,
      DisbursementApprovalResolver,
      AuditResolver,
      FinanceResolver,
      BeneficiaryResolver,
    ],
    validate: false,
    // type-graphql wants a PubSub wherever there are subscriptions; every one here subscribes through
    // the service (its storage's events), so this one never carries an event.
    pubSub: createPubSub(),
    container: { get: (resolverClass: unknown) => resolvers.get(resolverClass) },
  });
}

export function printGatewaySchema(schema: GraphQLSchema = buildGatewaySchema()): string {
  return `${printSchema(lexicographicSortSchema(schema))}\n`;
}
