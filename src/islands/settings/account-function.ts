// The account function for the signed-in member: GET (body null) exports their data, POST deletes the account.
// It acts for whoever owns the access token, so the session's token is the bearer.
import { type FunctionAnswer, type FunctionPayloads, invokeFunction } from '../../lib/functions.ts';
import { supabase } from '../../stores/supabase.ts';

export async function invokeAccount(body: FunctionPayloads['account'] | null): Promise<FunctionAnswer> {
  const { data } = await supabase().auth.getSession();
  return invokeFunction('account', body, { accessToken: data.session?.access_token });
}
