// GET /user: who a person's token belongs to (an installation token has no user and is refused, as on GitHub).
import { GitHubError } from '../errors.ts';
import { routeInto, type Route } from '../routing.ts';
import { userJson } from '../shapes.ts';

export const userRoutes: Route[] = [];
const route = routeInto(userRoutes);

route('GET', '/user', 'users.getAuthenticated', async (_ctx, _params, _query, _body, caller) => {
  if (caller.credential !== 'token') {
    throw new GitHubError(403, 'Resource not accessible by integration', undefined, {}, 'https://docs.github.com/rest/users/users#get-the-authenticated-user');
  }
  return {
    body: {
      ...userJson(caller.login), name: caller.login, company: null, blog: '', location: null, email: null, hireable: null, bio: null,
      twitter_username: null, public_repos: 0, public_gists: 0, followers: 0, following: 0, created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:00:00Z',
    },
  };
});
