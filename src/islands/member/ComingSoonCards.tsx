import type { CardContent } from '../../lib/member-content.ts';

interface Props {
  heading: string;
  cards: CardContent[];
  /** Heading level of the group; the cards' titles sit one below. */
  level?: 2 | 3;
}

/** Cards of features not open yet: a Coming Soon badge, no link or action. */
export default function ComingSoonCards({ heading, cards, level = 2 }: Props) {
  const GroupHeading = level === 2 ? 'h2' : 'h3';
  const CardHeading = level === 2 ? 'h3' : 'h4';
  return (
    <section className="mt-10">
      <GroupHeading className="text-2xl font-semibold">{heading}</GroupHeading>
      <ul className="mt-4 grid list-none gap-6 p-0 sm:grid-cols-2">
        {cards.map((card) => (
          <li
            key={card.title}
            className="flex flex-col gap-3 rounded-2xl border border-dashed border-navy-600 bg-navy-900 p-6"
          >
            {card.badge && (
              <span className="self-start rounded-full border border-accent/50 bg-accent/10 px-3 py-1 text-sm font-semibold text-accent">
                {card.badge}
              </span>
            )}
            <CardHeading className="text-xl font-semibold">{card.title}</CardHeading>
            <p className="text-muted">{card.text}</p>
          </li>
        ))}
      </ul>
    </section>
  );
}
