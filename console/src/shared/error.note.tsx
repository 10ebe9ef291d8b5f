import { problemsOf } from './problem';

/** A failed request as the gateway explained it: each error's message, code and fields, announced to screen readers. */
export function ErrorNote({ error, title }: { error: unknown; title?: string }) {
  if (!error) return null;
  return (
    <div className="note note-error" role="alert">
      {title && <p className="note-title">{title}</p>}
      <ul>
        {problemsOf(error).map((problem, index) => (
          <li key={index} data-code={problem.code}>
            {problem.message}
            {problem.code && <code className="code">{problem.code}</code>}
            {problem.fields && problem.fields.length > 0 && (
              <span className="fields"> (fields: {problem.fields.join(', ')})</span>
            )}
          </li>
        ))}
      </ul>
    </div>
  );
}
