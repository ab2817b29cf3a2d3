import { z } from 'zod';
import { occurredAtSchema } from './envelope.schema';
import { LIMITS } from './limits';
import { personSchema } from './person.schema';

/*
 * G1 (added 2026-12-01 (c)): the two-person rule and quorum, as a prompt carries it. The session
 * keeps the rule and decides every answer; a binding only renders what this says ("1 of 2
 * approvals: ✓ Alice · waiting for Bob, Carol"), so no binding needs a copy of the policy.
 */

/** How many distinct approvals a prompt may ever need: one from each of at most 20 approvers. */
export const MAX_QUORUM = LIMITS.approvers;

/** One approval counted towards a quorum: who, and when the session journaled it. */
export const approvalCountSchema = z.strictObject({
  by: personSchema,
  at: occurredAtSchema,
});

export const quorumSchema = z
  .strictObject({
    /** Distinct approvals needed (1: one of the named approvers, or anyone but `separateFrom`). */
    required: z.number().int().min(1).max(MAX_QUORUM),
    /** The approvals counted so far, oldest first; fewer than `required` while it is pending. */
    approvals: z.array(approvalCountSchema).max(MAX_QUORUM),
    /**
     * Named approvers who have not approved yet (and may: the person of `separateFrom` is left
     * out). Absent when any member may approve.
     */
    waitingFor: z.array(personSchema).max(MAX_QUORUM).optional(),
    /** `separateApprover`: the person who asked, who may deny their own call but not approve it. */
    separateFrom: personSchema.optional(),
  })
  .superRefine((quorum, ctx) => {
    const ids = quorum.approvals.map((a) => a.by.id);
    if (new Set(ids).size !== ids.length) {
      ctx.addIssue({
        code: 'custom',
        path: ['approvals'],
        message: 'must not count a person twice',
      });
    }
  });

export type ApprovalCount = z.infer<typeof approvalCountSchema>;
export type Quorum = z.infer<typeof quorumSchema>;
