import type { Problem } from './problem';

/** One error as the gateway words it: its message, its code, and the fields it names; never a stack. */
export function ProblemText({ problem }: { problem: Problem }) {
  return (
    <>
      {problem.message}
      {problem.code && <code className="code">{problem.code}</code>}
      {problem.fields && problem.fields.length > 0 && (
        <span className="fields"> (fields: {problem.fields.join(', ')})</span>
      )}
    </>
  );
}
