import { Type } from 'typebox';
import { Password } from '../../tenants/index.js';
import type { FormOptions } from '../web/forms.js';

/**
 * An empty field is no attempt: no password is checked, and nothing is counted or audited. Long
 * values are cut (not refused) by the route, so a long guess fails like any other.
 */
export const SignInForm = Type.Object({
  email: Type.String({ minLength: 1 }),
  password: Type.String({ minLength: 1 }),
  next: Type.String(),
});

export const signInFormOptions: FormOptions<typeof SignInForm> = {
  messages: { email: 'Enter your e-mail.', password: 'Enter your password.' },
  trim: ['email'],
};

/** The current password is checked against the store, and the two new ones against each other. */
export const PasswordForm = Type.Object({
  current_password: Type.String(),
  new_password: Password,
  confirm_password: Type.String(),
});

export const passwordFormOptions: FormOptions<typeof PasswordForm> = {
  messages: { new_password: 'The new password needs 10 to 256 characters.' },
};

/** A code from the authenticator app, or a recovery code; the route cuts it at 20 characters. */
export const CodeForm = Type.Object({ code: Type.String() });

export const codeFormOptions: FormOptions<typeof CodeForm> = { messages: {} };

/** Whom to send a password link: the same answer whatever it is (the route cuts it at 254). */
export const ForgotPasswordForm = Type.Object({ email: Type.String() });

export const forgotPasswordFormOptions: FormOptions<typeof ForgotPasswordForm> = { messages: {} };

/** Setting a password from a one-time link (an invitation or a reset). */
export const LinkPasswordForm = Type.Object({
  token: Type.String({ pattern: '^[A-Za-z0-9_-]{43}$' }),
  new_password: Password,
  confirm_password: Type.String(),
});

export const linkPasswordFormOptions: FormOptions<typeof LinkPasswordForm> = {
  messages: { new_password: 'The password needs 10 to 256 characters.' },
};
