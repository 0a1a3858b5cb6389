// @vitest-environment happy-dom
import { LOCAL_PASSWORD_MIN } from '@chronicler/contracts';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { LocalLoginForm } from './LocalLoginForm.tsx';

afterEach(cleanup);

/** A sign-in callback that records being called: the form must not reach the server on bad input. */
function setup() {
  const signedIn: unknown[] = [];
  render(
    <LocalLoginForm
      onSignedIn={async (result) => {
        signedIn.push(result);
        return true;
      }}
    />,
  );
  const type = (label: string, value: string) =>
    fireEvent.change(screen.getByLabelText(label), { target: { value } });
  return { signedIn, type };
}

describe('the local account form', () => {
  it('opens on "Create account" when told no account exists yet, and on "Sign in" otherwise', () => {
    render(<LocalLoginForm onSignedIn={async () => true} initialMode="create" />);
    expect(screen.getByRole('radio', { name: 'Create account' })).toHaveProperty('checked', true);
    expect(screen.getByRole('button', { name: 'Create local account' })).toBeTruthy();
    cleanup();
    setup();
    expect(screen.getByRole('radio', { name: 'Sign in' })).toHaveProperty('checked', true);
  });

  it('keeps its button disabled until a name and a password are typed', () => {
    const { type } = setup();
    const button = screen.getByRole('button', { name: 'Sign in locally' });
    expect(button).toHaveProperty('disabled', true);
    type('Username', '   ');
    type('Password', 'secret password');
    expect(button).toHaveProperty('disabled', true);
    type('Username', 'alice');
    expect(button).toHaveProperty('disabled', false);
  });

  it('says a short password is too short, without signing in', () => {
    const { signedIn, type } = setup();
    type('Username', 'alice');
    type('Password', 'x'.repeat(LOCAL_PASSWORD_MIN - 1));
    fireEvent.click(screen.getByRole('button', { name: 'Sign in locally' }));
    expect(screen.getByRole('alert').textContent).toBe(
      `Password must be at least ${LOCAL_PASSWORD_MIN} characters.`,
    );
    expect(screen.getByLabelText('Password').getAttribute('aria-invalid')).toBe('true');
    expect(signedIn).toEqual([]);
  });

  it('asks for the password twice when creating an account, and says when they differ', () => {
    const { signedIn, type } = setup();
    expect(screen.queryByLabelText('Confirm password')).toBeNull();
    fireEvent.click(screen.getByLabelText('Create account'));
    type('Username', 'alice');
    type('Password', 'first password');
    type('Confirm password', 'second password');
    fireEvent.click(screen.getByRole('button', { name: 'Create local account' }));
    expect(screen.getByRole('alert').textContent).toBe('The passwords do not match.');
    expect(signedIn).toEqual([]);
  });

  it('clears the message and the confirmation when switching back to sign-in', () => {
    const { type } = setup();
    fireEvent.click(screen.getByLabelText('Create account'));
    type('Username', 'alice');
    type('Password', 'first password');
    type('Confirm password', 'other password');
    fireEvent.click(screen.getByRole('button', { name: 'Create local account' }));
    fireEvent.click(screen.getByLabelText('Sign in'));
    expect(screen.queryByRole('alert')).toBeNull();
    expect(screen.queryByLabelText('Confirm password')).toBeNull();
    expect(screen.getByRole('button', { name: 'Sign in locally' })).toHaveProperty('disabled', false);
  });
});
