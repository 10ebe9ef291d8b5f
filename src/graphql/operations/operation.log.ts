import { ApolloServerPlugin } from '@apollo/server';
import { clientText } from '../../observability/client-text.limit';
import { GatewayMetrics } from '../../observability/gateway.metrics';
import { Logger } from '../../observability/pino.logger';
import { providerCallsSoFar } from '../../observability/request.context';
import { GatewayContext } from '../gateway.context';
import { describeActiveOperation } from './operation.tracing';

/** One log line and one counted outcome per GraphQL operation over HTTP; its provider calls are on that line. */
export function useOperationLog(logger: Logger, metrics: GatewayMetrics): ApolloServerPlugin<GatewayContext> {
  return {
    async requestDidStart({ contextValue }) {
      const started = process.hrtime.bigint();
      return {
        async willSendResponse({ operationName, operation, response }) {
          const errors = response.body.kind === 'single' ? response.body.singleResult.errors : undefined;
          const code = errors?.[0]?.extensions?.code;
          const outcome = errors?.length ? (typeof code === 'string' ? code : 'ERROR') : 'ok';
          const type = operation?.operation ?? 'unknown';
          // Apollo's operationName is that of the operation found in the document, never just the request's claim.
          const name = operationName ?? 'anonymous';
          describeActiveOperation(type, name, contextValue.merchant.id, outcome);
          metrics.operations.inc({
            operation: metrics.operationLabels.label(operationName ?? undefined),
            type,
            outcome,
          });
          const providerCalls = providerCallsSoFar();
          logger.info(
            {
              operation: clientText(name),
              type,
              outcome,
              merchant: contextValue.merchant.id,
              durationMs: Math.round(Number(process.hrtime.bigint() - started) / 1e6),
              ...(providerCalls.length > 0 && { providerCalls }),
            },
            'graphql operation',
          );
        },
      };
    },
  };
}
