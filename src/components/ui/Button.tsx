import type { AnchorHTMLAttributes, ButtonHTMLAttributes, Ref } from 'react';
import { type ButtonSize, type ButtonVariant, buttonVariants } from './variants.ts';

interface Look {
  variant?: ButtonVariant;
  size?: ButtonSize;
}

type ButtonProps = Look & ButtonHTMLAttributes<HTMLButtonElement> & { href?: undefined; ref?: Ref<HTMLButtonElement> };
type LinkProps = Look & AnchorHTMLAttributes<HTMLAnchorElement> & { href: string; ref?: Ref<HTMLAnchorElement> };

/**
 * The islands' button, with the variants and sizes of the static pages' Button.astro (one class map:
 * ./variants.ts). With `href` it is a link shown as a button. `type` defaults to "button", as there.
 */
export default function Button(props: ButtonProps | LinkProps) {
  if (props.href !== undefined) {
    const { variant, size, className, ...link } = props;
    return <a className={buttonVariants(variant, size, className)} {...link} />;
  }
  const { variant, size, className, type = 'button', ...button } = props;
  return <button type={type} className={buttonVariants(variant, size, className)} {...button} />;
}
