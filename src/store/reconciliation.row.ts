import { DisbursementStatus } from '../disbursements/disbursement.model';
import { Discrepancy, DiscrepancyKind, ReconciliationRun } from '../disbursements/reconciliation.model';

/** A run's columns: the ones queries need, and the whole run as JSON. */
export function runColumns(run: ReconciliationRun) {
  return {
    id: run.id,
    merchant_id: run.merchantId,
    window_from: run.from,
    window_to: run.to,
    state: run.state,
    started_at: run.startedAt,
    finished_at: run.finishedAt ?? null,
    total: run.total,
    checked: run.checked,
    run: JSON.stringify(run),
  };
}

export interface DiscrepancyRow {
  reference_id: string;
  kind: string;
  gateway_status: string;
  provider_status: string | null;
  resolved: number;
}

export function discrepancyOf(row: DiscrepancyRow): Discrepancy {
  return {
    referenceId: row.reference_id,
    kind: row.kind as DiscrepancyKind,
    gatewayStatus: row.gateway_status as DisbursementStatus,
    providerStatus: row.provider_status as DisbursementStatus | null,
    resolved: row.resolved === 1,
  };
}
