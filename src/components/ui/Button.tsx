import { type AnchorHTMLAttributes, type ButtonHTMLAttributes, forwardRef, type Ref } from 'react';
import { type ButtonSize, type ButtonVariant, buttonVariants } from './variants.ts';

interface Look {
  variant?: ButtonVariant;
  size?: ButtonSize;
}

type ButtonProps = Look & ButtonHTMLAttributes<HTMLButtonElement> & { href?: undefined };
type LinkProps = Look & AnchorHTMLAttributes<HTMLAnchorElement> & { href: string };

/**
 * The islands' button, with the variants and sizes of the static pages' Button.astro (one class map:
 * ./variants.ts). With `href` it is a link shown as a button. `type` defaults to "button", as there. A ref reaches
 * the element (forwardRef, as Field).
 */
const Button = forwardRef<HTMLButtonElement | HTMLAnchorElement, ButtonProps | LinkProps>(function Button(props, ref) {
  if (props.href !== undefined) {
    const { variant, size, className, ...link } = props;
    return <a ref={ref as Ref<HTMLAnchorElement>} className={buttonVariants(variant, size, className)} {...link} />;
  }
  const { variant, size, className, type = 'button', ...button } = props;
  return (
    <button
      ref={ref as Ref<HTMLButtonElement>}
      type={type}
      className={buttonVariants(variant, size, className)}
      {...button}
    />
  );
});

export default Button;
