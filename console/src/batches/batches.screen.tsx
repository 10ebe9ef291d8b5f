import { useApolloClient, useMutation } from '@apollo/client/react';
import { useState, type ChangeEvent } from 'react';
import { allows, SCOPES } from '../api/api.session';
import { useSession } from '../app/app.session';
import type { BatchRowResultFragment } from '../gql/graphql';
import { ErrorNote } from '../shared/error.note';
import { Loading } from '../shared/loading';
import { formatMoney } from '../shared/money';
import { ProblemText } from '../shared/problem.text';
import { StatusBadge } from '../shared/status.badge';
import { checkWithApi, sendable, type CheckedRow } from './batch.check';
import { checkRows } from './batch.rows';
import { CREATE_MOBILE_PAYOUTS, PAY_BENEFICIARIES } from './batches.operations';

/** One of the two batches a file is sent as, refused or lost as a whole. */
interface Failure {
  what: string;
  rows: number;
  error: unknown;
}

/** A row's answer as the gateway gave it, its fields named within the row ("amount", not "inputs.3.amount"). */
function AnswerText({ answer }: { answer: BatchRowResultFragment | undefined }) {
  if (answer?.disbursement) return <StatusBadge status={answer.disbursement.status} />;
  if (!answer?.error) return null;
  const { message, code, fields } = answer.error;
  return (
    <span className="error-text">
      <ProblemText problem={{ message, code, fields: fields?.map((f) => f.replace(/^inputs\.\d+\./, '')) }} />
    </span>
  );
}

function checkText(row: CheckedRow) {
  if (row.problems.length > 0) return `Not sent: ${row.problems.join('; ')}`;
  if (row.refusal)
    return (
      <>
        Not sent: its beneficiary could not be read: <ProblemText problem={row.refusal} />
      </>
    );
  if (row.existing) return `Already recorded (${row.existing}): sending again pays nothing twice`;
  if (row.unchecked) return 'OK; beneficiary not checked (that needs beneficiaries:read): the API checks it when sent';
  return 'OK';
}

/**
 * A batch from a CSV file: checked row by row in the browser, then by the API (beneficiaries,
 * references already paid), shown for review, and only then sent; each row gets its answer.
 * The references are the file's own, so sending the same file again pays nothing twice.
 */
export function BatchesScreen() {
  const client = useApolloClient();
  const readsBeneficiaries = allows(useSession(), SCOPES.beneficiariesRead);
  const [rows, setRows] = useState<CheckedRow[]>();
  const [fileProblem, setFileProblem] = useState<string>();
  const [checking, setChecking] = useState(false);
  const [checkError, setCheckError] = useState<unknown>();
  const [answers, setAnswers] = useState<Map<string, BatchRowResultFragment>>();
  const [failures, setFailures] = useState<Failure[]>([]);
  const [payBeneficiaries, paying] = useMutation(PAY_BENEFICIARIES);
  const [createMobile, creating] = useMutation(CREATE_MOBILE_PAYOUTS);
  const ready = (rows ?? []).filter(sendable);
  const sending = paying.loading || creating.loading;

  const choose = async (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0];
    // Emptied, so choosing the same file again (corrected, say) is a change the input reports.
    event.target.value = '';
    setRows(undefined);
    setAnswers(undefined);
    setCheckError(undefined);
    setFailures([]);
    if (!file) return;
    const { rows: parsed, problem } = checkRows(await file.text());
    setFileProblem(problem);
    if (problem) return;
    setChecking(true);
    try {
      setRows(await checkWithApi(client, parsed, readsBeneficiaries));
    } catch (error) {
      setCheckError(error);
    } finally {
      setChecking(false);
    }
  };

  // Beneficiaries and mobile money numbers go as two batches: each one's answers are shown even when the other fails.
  const send = async () => {
    setFailures([]);
    const common = (row: CheckedRow) => ({
      amount: row.amount,
      currency: row.currency,
      referenceId: row.reference,
      narration: row.narration,
    });
    const toBeneficiaries = ready.filter((row) => row.kind === 'beneficiary');
    const toMobile = ready.filter((row) => row.kind === 'mobile');
    const batches = [
      {
        what: 'Payouts to beneficiaries',
        rows: toBeneficiaries.length,
        send: async () =>
          (
            await payBeneficiaries({
              variables: { inputs: toBeneficiaries.map((row) => ({ ...common(row), beneficiaryId: row.recipient })) },
            })
          ).data?.payBeneficiaries ?? [],
      },
      {
        what: 'Mobile money payouts',
        rows: toMobile.length,
        send: async () =>
          (
            await createMobile({
              variables: { inputs: toMobile.map((row) => ({ ...common(row), accountNumber: row.recipient })) },
            })
          ).data?.createMobileMoneyDisbursements ?? [],
      },
    ].filter((batch) => batch.rows > 0);
    const settled = await Promise.allSettled(batches.map((batch) => batch.send()));
    const answered = new Map<string, BatchRowResultFragment>();
    const failed: Failure[] = [];
    settled.forEach((result, index) => {
      if (result.status === 'fulfilled') for (const answer of result.value) answered.set(answer.referenceId, answer);
      else failed.push({ what: batches[index].what, rows: batches[index].rows, error: result.reason });
    });
    setAnswers(answered);
    setFailures(failed);
  };

  const given = answers ? [...answers.values()] : [];
  const paid = given.filter((a) => a.disbursement).length;
  const unanswered = failures.reduce((sum, failure) => sum + failure.rows, 0);
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
            (ZMW when empty) and narration. A first line naming these columns is skipped. At most 100 rows.
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
            {answers &&
              `. Sent: ${paid} payouts recorded, ${given.length - paid} refused${unanswered ? `, ${unanswered} without an answer` : ''}.`}
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
              {rows.map((row) => (
                <tr key={row.line} data-line={row.line}>
                  <td data-label="Line">{row.line}</td>
                  <td data-label="Recipient">{row.payee ? `${row.payee} (${row.recipient})` : row.recipient}</td>
                  <td data-label="Amount" className="num">
                    {formatMoney(row.amount, row.currency)}
                  </td>
                  <td data-label="Reference" className="ref">
                    {row.reference}
                  </td>
                  <td data-label="Check">{checkText(row)}</td>
                  <td data-label="Answer">
                    <AnswerText answer={answers?.get(row.reference)} />
                  </td>
                </tr>
              ))}
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
          {failures.map((failure) => (
            <ErrorNote
              key={failure.what}
              error={failure.error}
              title={`${failure.what} (${failure.rows}): no answers. Sending the file again pays nothing twice.`}
            />
          ))}
        </section>
      )}
    </>
  );
}
