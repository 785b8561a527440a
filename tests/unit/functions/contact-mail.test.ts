import { expect, test } from 'vitest';
import { contactMail } from '../../../supabase/functions/send-contact-email/contact.ts';

test('the inbox gets the subject, a reply-to of the sender and a text body with name, email and message', () => {
  const mail = contactMail(
    { name: 'Ann Lee', email: 'ann@example.com', subject: 'Pricing', message: 'How much is Growth One?\nThanks' },
    'support@signals.local',
  );
  expect(mail).toEqual({
    to: 'support@signals.local',
    subject: 'Pricing',
    replyTo: { name: 'Ann Lee', address: 'ann@example.com' },
    text: [
      'New message from the contact form.',
      '',
      'Name: Ann Lee',
      'Email: ann@example.com',
      'Subject: Pricing',
      '',
      'How much is Growth One?',
      'Thanks',
      '',
    ].join('\n'),
  });
});
