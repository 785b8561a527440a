import { type SubmitEvent, useRef, useState } from 'react';
import Button from '../../components/ui/Button.tsx';
import Field from '../../components/ui/Field.tsx';
import { signOut } from '../../stores/sign-out.ts';
import { supabase } from '../../stores/supabase.ts';
import { toast } from '../../stores/toasts.ts';
import { functionErrorText } from '../auth/auth-toast.ts';
import type { SettingsLabels } from '../Settings.tsx';

interface Props {
  labels: SettingsLabels;
}

/** Saves `data` as a JSON file through the browser's download (a Blob behind an <a download>). */
function saveJson(data: unknown, fileName: string) {
  const url = URL.createObjectURL(new Blob([JSON.stringify(data, null, 2)], { type: 'application/json' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  document.body.append(link);
  link.click();
  link.remove();
  // The download has started from the URL; freeing it at once can cancel it in some browsers.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/**
 * Your data: Download my data (the account function's GET, saved as a JSON file) and Delete my account (a
 * modal <dialog> that says what goes and asks for the password; the function checks it and deletes; then the
 * member is signed out on this device and lands on / with a toast).
 */
export default function SettingsDataRights({ labels }: Props) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [downloading, setDownloading] = useState(false);
  const [password, setPassword] = useState('');
  const [deleting, setDeleting] = useState(false);
  const [problem, setProblem] = useState('');

  const download = async () => {
    setDownloading(true);
    try {
      const { data, error } = await supabase().functions.invoke('account', { method: 'GET' });
      if (error) {
        const text = await functionErrorText(error);
        toast({ title: labels.downloadFailedTitle, description: text ?? labels.unexpected, variant: 'destructive' });
        return;
      }
      saveJson(data, `signalone-data-${new Date().toISOString().slice(0, 10)}.json`);
      toast({ title: labels.downloadedTitle, description: labels.downloaded });
    } catch (err) {
      console.error('Data download failed:', err);
      toast({ title: labels.downloadFailedTitle, description: labels.unexpected, variant: 'destructive' });
    } finally {
      setDownloading(false);
    }
  };

  const openDialog = () => {
    setPassword('');
    setProblem('');
    dialog.current?.showModal();
  };

  const onDelete = async (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!password || deleting) return;
    setDeleting(true);
    setProblem('');
    try {
      const { error } = await supabase().functions.invoke('account', { body: { password } });
      if (error) {
        setProblem((await functionErrorText(error)) ?? labels.unexpected);
        setDeleting(false);
        return;
      }
    } catch (err) {
      console.error('Account deletion failed:', err);
      setProblem(labels.unexpected);
      setDeleting(false);
      return;
    }
    // The account and its sessions are gone on the server: clear this device's session and go to /.
    await signOut({
      signedOutTitle: labels.deletedTitle,
      signedOutDescription: labels.deleted,
      failedTitle: labels.deletedTitle,
      failedDescription: labels.deleted,
    });
  };

  return (
    <section aria-labelledby="data-rights" className="mt-10 rounded-2xl border border-navy-700 bg-navy-900 p-6">
      <h2 id="data-rights" className="text-2xl font-semibold">
        {labels.dataHeading}
      </h2>
      <p className="mt-2 text-muted">
        {labels.dataText}{' '}
        <a href="/privacy" className="text-accent underline underline-offset-2">
          {labels.privacyLink}
        </a>
      </p>
      <div className="mt-6 grid gap-8 lg:grid-cols-2">
        <div>
          <h3 className="text-xl font-semibold">{labels.downloadHeading}</h3>
          <p className="mt-2 text-muted">{labels.downloadText}</p>
          <Button onClick={download} disabled={downloading} className="mt-4">
            {downloading ? labels.downloading : labels.download}
          </Button>
        </div>
        <div>
          <h3 className="text-xl font-semibold">{labels.deleteHeading}</h3>
          <p className="mt-2 text-muted">{labels.deleteText}</p>
          <Button variant="danger-outline" onClick={openDialog} aria-haspopup="dialog" className="mt-4">
            {labels.deleteOpen}
          </Button>
        </div>
      </div>

      <dialog
        ref={dialog}
        aria-labelledby="delete-account-title"
        aria-describedby="delete-account-what"
        className="m-auto w-[calc(100%-1rem)] max-w-lg rounded-2xl border border-navy-700 bg-navy-950 p-6 text-white shadow-2xl backdrop:bg-navy-950/85"
      >
        <form onSubmit={onDelete} className="grid gap-4">
          <h2 id="delete-account-title" className="text-2xl font-semibold">
            {labels.deleteDialogTitle}
          </h2>
          <div id="delete-account-what" className="grid gap-2 text-muted">
            <p>{labels.deleteWhat}</p>
            <p>{labels.deleteKept}</p>
          </div>
          <Field
            id="delete-account-password"
            label={labels.deletePassword}
            type="password"
            autoComplete="current-password"
            required
            value={password}
            onChange={(e) => setPassword(e.target.value)}
            error={problem}
            disabled={deleting}
          />
          <div className="flex flex-wrap justify-end gap-3">
            <Button variant="outline" onClick={() => dialog.current?.close()} disabled={deleting}>
              {labels.cancel}
            </Button>
            <Button variant="danger" type="submit" disabled={!password || deleting}>
              {deleting ? labels.deleting : labels.deleteConfirm}
            </Button>
          </div>
        </form>
      </dialog>
    </section>
  );
}
