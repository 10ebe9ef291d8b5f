import { problemsOf } from './problem';
import { ProblemText } from './problem.text';

/** A failed request as the gateway explained it: each error's message, code and fields, announced to screen readers. */
export function ErrorNote({ error, title }: { error: unknown; title?: string }) {
  if (!error) return null;
  return (
    <div className="note note-error" role="alert">
      {title && <p className="note-title">{title}</p>}
      <ul>
        {problemsOf(error).map((problem, index) => (
          <li key={index} data-code={problem.code}>
            <ProblemText problem={problem} />
          </li>
        ))}
      </ul>
    </div>
  );
}
