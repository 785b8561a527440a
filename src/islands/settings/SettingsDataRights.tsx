import { useRef, useState } from 'react';
import Button from '../../components/ui/Button.tsx';
import { toast } from '../../stores/toasts.ts';
import { invokeAccount } from './account-function.ts';
import DeleteAccountDialog from './DeleteAccountDialog.tsx';
import type { SettingsLabels } from './labels.ts';

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
 * Your data: Download my data (the account function's GET, saved as a JSON file; a refusal is toasted in the
 * function's words) and Delete my account (DeleteAccountDialog).
 */
export default function SettingsDataRights({ labels }: Props) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [downloading, setDownloading] = useState(false);
  const [opened, setOpened] = useState(0);

  const download = async () => {
    setDownloading(true);
    try {
      const answer = await invokeAccount(null);
      if (!answer.ok) {
        const text = answer.error.message;
        toast({ title: labels.downloadFailedTitle, description: text ?? labels.unexpected, variant: 'destructive' });
        return;
      }
      saveJson(answer.data, `signalone-data-${new Date().toISOString().slice(0, 10)}.json`);
      toast({ title: labels.downloadedTitle, description: labels.downloaded });
    } catch (err) {
      console.error('Data download failed:', err);
      toast({ title: labels.downloadFailedTitle, description: labels.unexpected, variant: 'destructive' });
    } finally {
      setDownloading(false);
    }
  };

  const openDialog = () => {
    setOpened((n) => n + 1);
    dialog.current?.showModal();
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

      <DeleteAccountDialog labels={labels} dialog={dialog} opened={opened} />
    </section>
  );
}
