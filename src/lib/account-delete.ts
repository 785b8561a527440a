// Delete my account: what a refusal of the account function means for the dialog. The function answers
// {"error": sentence, "code"?: name}; the dialog shows the sentence under the field it is about.

/** The JSON body of the account function's refusal, as far as it could be read. */
export interface AccountRefusal {
  error?: unknown;
  message?: unknown;
  code?: unknown;
}

export interface DeleteProblem {
  /** The field the sentence goes under: the password, or the authenticator code. */
  field: 'password' | 'code';
  /** The function's own sentence, when it gave one. */
  text?: string;
  /** The member has two-factor on: the dialog shows the code field from now on. */
  askCode: boolean;
}

/**
 * A missing code (400 mfa_code_required) or a wrong one (400 mfa_verification_failed) belongs to the code
 * field, which the dialog shows from then on; everything else (a wrong password, too many tries, an expired
 * session) to the password field.
 */
export function deleteProblem(body: AccountRefusal | null | undefined): DeleteProblem {
  const sentence = typeof body?.error === 'string' ? body.error : body?.message;
  const text = typeof sentence === 'string' && sentence.trim() ? sentence.trim() : undefined;
  const aboutCode = body?.code === 'mfa_code_required' || body?.code === 'mfa_verification_failed';
  return { field: aboutCode ? 'code' : 'password', ...(text ? { text } : {}), askCode: aboutCode };
}
