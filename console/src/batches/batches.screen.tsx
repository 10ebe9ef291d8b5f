import { useApolloClient, useMutation } from '@apollo/client/react';
import { useState, type ChangeEvent } from 'react';
import type { PayoutRowFragment } from '../gql/graphql';
import { ErrorNote } from '../shared/error.note';
import { Loading } from '../shared/loading';
import { formatMoney } from '../shared/money';
import { StatusBadge } from '../shared/status.badge';
import { checkWithApi, type CheckedRow } from './batch.check';
import { checkRows } from './batch.rows';
import { CREATE_MOBILE_PAYOUTS, PAY_BENEFICIARIES } from './batches.operations';

interface Answer {
  referenceId: string;
  disbursement?: PayoutRowFragment | null;
  error?: { code: string; message: string } | null;
}

/**
 * A batch from a CSV file: checked row by row in the browser, then by the API (beneficiaries,
 * references already paid), shown for review, and only then sent; each row gets its answer.
 * The references are the file's own, so sending the same file again pays nothing twice.
 */
export function BatchesScreen() {
  const client = useApolloClient();
  const [rows, setRows] = useState<CheckedRow[]>();
  const [fileProblem, setFileProblem] = useState<string>();
  const [checking, setChecking] = useState(false);
  const [checkError, setCheckError] = useState<unknown>();
  const [answers, setAnswers] = useState<Map<string, Answer>>();
  const [payBeneficiaries, paying] = useMutation(PAY_BENEFICIARIES);
  const [createMobile, creating] = useMutation(CREATE_MOBILE_PAYOUTS);
  const [sendError, setSendError] = useState<unknown>();
  const ready = (rows ?? []).filter((row) => row.problems.length === 0);
  const sending = paying.loading || creating.loading;

  const choose = async (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0];
    setRows(undefined);
    setAnswers(undefined);
    setCheckError(undefined);
    setSendError(undefined);
    if (!file) return;
    const { rows: parsed, problem } = checkRows(await file.text());
    setFileProblem(problem);
    if (problem) return;
    setChecking(true);
    try {
      setRows(await checkWithApi(client, parsed));
    } catch (error) {
      setCheckError(error);
    } finally {
      setChecking(false);
    }
  };

  const send = async () => {
    setSendError(undefined);
    const common = (row: CheckedRow) => ({
      amount: row.amount,
      currency: row.currency,
      referenceId: row.reference,
      narration: row.narration,
    });
    const toBeneficiaries = ready.filter((row) => row.kind === 'beneficiary');
    const toMobile = ready.filter((row) => row.kind === 'mobile');
    try {
      const [beneficiaryAnswers, mobileAnswers] = await Promise.all([
        toBeneficiaries.length
          ? payBeneficiaries({
              variables: { inputs: toBeneficiaries.map((row) => ({ ...common(row), beneficiaryId: row.recipient })) },
            }).then(({ data }) => data?.payBeneficiaries ?? [])
          : [],
        toMobile.length
          ? createMobile({
              variables: { inputs: toMobile.map((row) => ({ ...common(row), accountNumber: row.recipient })) },
            }).then(({ data }) => data?.createMobileMoneyDisbursements ?? [])
          : [],
      ]);
      setAnswers(new Map([...beneficiaryAnswers, ...mobileAnswers].map((answer) => [answer.referenceId, answer])));
    } catch (error) {
      setSendError(error);
    }
  };

  const paid = answers ? [...answers.values()].filter((a) => a.disbursement).length : 0;
  return (
    <>
      <h1>Batches</h1>
      <div className="card form">
        <div className="field">
          <label htmlFor="batch-file">CSV file</label>
          <input
            id="batch-file"
            type="file"
            accept=".csv,text/csv"
            onChange={(e) => void choose(e)}
            aria-describedby="batch-file-hint"
          />
          <small id="batch-file-hint">
            Columns: recipient (a beneficiary id, or a mobile money number), amount, reference, then optionally currency
            (ZMW when empty) and narration. A first line naming the columns is skipped. At most 100 rows.
          </small>
        </div>
      </div>
      {fileProblem && (
        <p className="note note-error" role="alert">
          {fileProblem}
        </p>
      )}
      {checking && <Loading what="the API's check of each row" />}
      <ErrorNote error={checkError} title="The file could not be checked" />
      {rows && (
        <section aria-labelledby="review">
          <h2 id="review">Review</h2>
          <p role="status">
            {ready.length} of {rows.length} rows ready to send
            {rows.length > ready.length && `; ${rows.length - ready.length} with problems will not be sent`}
            {answers && `. Sent: ${paid} payouts recorded, ${answers.size - paid} refused.`}
          </p>
          <table className="rows">
            <caption className="visually-hidden">Batch rows</caption>
            <thead>
              <tr>
                <th scope="col">Line</th>
                <th scope="col">Recipient</th>
                <th scope="col" className="num">
                  Amount
                </th>
                <th scope="col">Reference</th>
                <th scope="col">Check</th>
                <th scope="col">Answer</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => {
                const answer = answers?.get(row.reference);
                return (
                  <tr key={row.line} data-line={row.line}>
                    <td data-label="Line">{row.line}</td>
                    <td data-label="Recipient">{row.payee ? `${row.payee} (${row.recipient})` : row.recipient}</td>
                    <td data-label="Amount" className="num">
                      {formatMoney(row.amount, row.currency)}
                    </td>
                    <td data-label="Reference" className="ref">
                      {row.reference}
                    </td>
                    <td data-label="Check">
                      {row.problems.length > 0
                        ? `Not sent: ${row.problems.join('; ')}`
                        : row.existing
                          ? `Already recorded (${row.existing}): sending again pays nothing twice`
                          : 'OK'}
                    </td>
                    <td data-label="Answer">
                      {answer?.disbursement && <StatusBadge status={answer.disbursement.status} />}
                      {answer?.error && (
                        <span className="error-text">
                          {answer.error.message} <code className="code">{answer.error.code}</code>
                        </span>
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
          <button
            type="button"
            className="primary"
            disabled={ready.length === 0 || sending}
            onClick={() => void send()}
          >
            {sending ? 'Sending…' : `Send ${ready.length} payouts`}
          </button>
          <ErrorNote error={sendError} />
        </section>
      )}
    </>
  );
}
