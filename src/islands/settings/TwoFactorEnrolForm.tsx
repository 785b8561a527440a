import type { ReactNode, SubmitEvent } from 'react';
import Button from '../../components/ui/Button.tsx';
import type { SettingsLabels } from './labels.ts';

interface Props {
  labels: SettingsLabels;
  /** The QR code as an <img> source, and the key to type instead. */
  qrCode: string;
  secret: string;
  copied: boolean;
  onCopy: () => void;
  busy: boolean;
  /** The code field (its state lives with the caller, which checks the code). */
  codeField: ReactNode;
  onSubmit: (event: SubmitEvent<HTMLFormElement>) => void;
  onCancel: () => void;
}

/** Two-factor setup's second step: the QR code and setup key of the new factor, then its first code. */
export default function TwoFactorEnrolForm({ labels, busy, ...props }: Props) {
  return (
    <form onSubmit={props.onSubmit} aria-labelledby="two-factor-setup" className="grid gap-4">
      <h4 id="two-factor-setup" className="font-semibold">
        {labels.twoFactorSetupHeading}
      </h4>
      <p className="text-muted">{labels.twoFactorScan}</p>
      {/* The QR code is drawn dark on white, as authenticator apps read it best. */}
      <img
        src={props.qrCode}
        alt={labels.twoFactorQrAlt}
        width={192}
        height={192}
        className="size-48 rounded-lg bg-white p-3"
      />
      <div>
        <p id="two-factor-secret-label" className="text-sm font-medium">
          {labels.twoFactorSecret}
        </p>
        <div className="mt-2 flex flex-wrap items-center gap-3">
          <code
            data-testid="two-factor-secret"
            className="rounded-lg border border-navy-600 bg-navy-950 px-3 py-2 font-mono break-all select-all"
          >
            {props.secret}
          </code>
          <Button variant="outline" onClick={props.onCopy}>
            {props.copied ? labels.twoFactorCopied : labels.twoFactorCopy}
          </Button>
        </div>
      </div>
      {props.codeField}
      <div className="flex flex-wrap gap-3">
        <Button type="submit" disabled={busy}>
          {busy ? labels.twoFactorChecking : labels.twoFactorConfirm}
        </Button>
        <Button variant="outline" onClick={props.onCancel} disabled={busy}>
          {labels.cancel}
        </Button>
      </div>
    </form>
  );
}
