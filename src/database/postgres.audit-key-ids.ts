/**
 * Version 11: audit_append as version 10 made it (entries without a sequence numbered by
 * `audit_chain()`, each entry's id passed through) and audit_checkpoint_add as version 7 made it,
 * each row with its audit key's id. CREATE OR REPLACE keeps the functions' grants.
 */
export const postgresAuditKeyIds = `
CREATE OR REPLACE FUNCTION audit_append(p_merchant TEXT, p_entries JSON) RETURNS INTEGER LANGUAGE plpgsql
  SECURITY DEFINER SET search_path = public AS $$
DECLARE
  appended INTEGER;
BEGIN
  INSERT INTO audit_log (merchant_id, sequence, at, actor, action, reference_id, status, amount, currency, detail, hash,
    previous_hash, mac, entry_id, key_id)
  SELECT p_merchant, a.sequence, a.at, a.actor, a.action, a.reference_id, a.status, a.amount, a.currency, a.detail,
    a.hash, a.previous_hash, a.mac, a.entry_id, a.key_id
  FROM ROWS FROM (json_to_recordset(p_entries) AS (sequence bigint, at text, actor text, action text,
    reference_id text, status text, amount text, currency text, detail text, hash text, previous_hash text,
    mac text, entry_id text, key_id text)) WITH ORDINALITY AS a(sequence, at, actor, action, reference_id, status,
    amount, currency, detail, hash, previous_hash, mac, entry_id, key_id, n)
  ORDER BY a.n;
  GET DIAGNOSTICS appended = ROW_COUNT;
  RETURN appended;
END $$;

CREATE OR REPLACE FUNCTION audit_checkpoint_add(p_checkpoints JSON) RETURNS void LANGUAGE sql
  SECURITY DEFINER SET search_path = public AS $$
  INSERT INTO audit_checkpoints (merchant_id, sequence, hash, at, signature, key_id)
  SELECT c.merchant_id, c.sequence, c.hash, c.at, c.signature, c.key_id
  FROM json_to_recordset(p_checkpoints) AS c(merchant_id text, sequence bigint, hash text, at text, signature text,
    key_id text)
  WHERE EXISTS (SELECT 1 FROM audit_log l
    WHERE l.merchant_id = c.merchant_id AND l.sequence = c.sequence AND l.hash = c.hash)
  ON CONFLICT (merchant_id, sequence) DO NOTHING;
$$;
`;
