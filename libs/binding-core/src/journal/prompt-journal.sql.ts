// The claim's statements (PromptJournalRepository.claim); apart, so the repository reads as
// the steps it takes.

// Leases are compared with clock_timestamp(), not now(): now() is when the transaction began,
// which can be long before a row lock we waited for was granted. The database's clock is
// the one every replica shares.
export const SELECT_LOCKED = `
  SELECT prompt_ref, conversation, status, last_seq, request, message_ref, outcome,
         post_nonce, lease_owner, intent, stray_since,
         COALESCE(lease_until > clock_timestamp(), false) AS leased,
         CEIL(EXTRACT(EPOCH FROM (lease_until - clock_timestamp())) * 1000)::int
           AS lease_remaining_ms
  FROM prompts WHERE session_id = $1 AND call_id = $2
  FOR UPDATE`;

export const INSERT_OR_LOCK = `
  WITH created AS (
    INSERT INTO prompts (session_id, call_id, prompt_ref, conversation, status, traceparent)
    VALUES ($1, $2, $3, $4, 'untracked', $5)
    ON CONFLICT DO NOTHING
    RETURNING 1)
  ${SELECT_LOCKED}`;

const ROW_COLUMNS = `prompt_ref, conversation, status, last_seq, request, message_ref, outcome,
  post_nonce, lease_owner, intent, stray_since,
  COALESCE(lease_until > clock_timestamp(), false) AS leased,
  CEIL(EXTRACT(EPOCH FROM (lease_until - clock_timestamp())) * 1000)::int AS lease_remaining_ms,
  xmin::text AS version`;

/**
 * The prompt as it is, without a lock, and with its row version (xmin): inserted by this very
 * statement if it was not there (the INSERT's RETURNING shows it, which the SELECT beside it
 * cannot), so a new prompt and a known one each take one round trip.
 *
 * A pending prompt nobody holds is leased by the same statement (`grabbed`) when the output
 * edits it ($9, its seq, is newer than the prompt's; NULL for a Request, which a pending
 * prompt drops): the edit that most outputs make needs no second round trip to take its
 * lease, and a drop decided all the same gives the lease back. The UPDATE waits for a
 * racing writer's row lock and looks again at the row it left (READ COMMITTED), so two
 * handlers never both grab; the loser reads the row as the statement's snapshot saw it, and
 * goes the optimistic way, which the changed xmin sends on to the locked one. The INSERT's
 * row is not in the UPDATE's snapshot: a new prompt is never grabbed.
 */
export const GRAB_OR_READ = `
  WITH created AS (
    INSERT INTO prompts (session_id, call_id, prompt_ref, conversation, status, traceparent)
    VALUES ($1, $2, $3, $4, 'untracked', $5)
    ON CONFLICT DO NOTHING
    RETURNING ${ROW_COLUMNS}, false AS grabbed),
  grabbed AS (
    UPDATE prompts
    SET lease_owner = $6,
        lease_until = clock_timestamp() + $7::int * interval '1 millisecond',
        intent = $8::jsonb, updated_at = now()
    WHERE session_id = $1 AND call_id = $2 AND status = 'pending' AND last_seq < $9::int
      AND NOT COALESCE(lease_until > clock_timestamp(), false)
      AND COALESCE(intent->'decision'->>'kind', '') <> 'post'
    RETURNING prompt_ref, conversation, status, last_seq, request, message_ref, outcome,
      post_nonce, lease_owner, intent, stray_since, false AS leased,
      NULL::int AS lease_remaining_ms,
      xmin::text AS version, true AS grabbed)
  SELECT * FROM created
  UNION ALL
  SELECT * FROM grabbed
  UNION ALL
  SELECT ${ROW_COLUMNS}, false AS grabbed FROM prompts
  WHERE session_id = $1 AND call_id = $2
    AND NOT EXISTS (SELECT 1 FROM created) AND NOT EXISTS (SELECT 1 FROM grabbed)`;
