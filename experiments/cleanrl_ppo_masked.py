"""A masked PPO in one file, in CleanRL's style, that learns the duel.

CleanRL's ``ppo.py`` (https://docs.cleanrl.dev/rl-algorithms/ppo/) with the changes an
env of 488 actions, about 9 of them legal at a time, needs, and nothing else:

- the legal actions come from ``info["action_mask"]`` (int8, one per action, on every
  step: reset, steps, the end); the policy's logits of illegal actions are set to a
  large negative number before the ``Categorical``, in the rollout and in the update
  (the masks are stored with the observations). Unmasked, an illegal action is a pass
  at -0.1 and the plain ``ppo.py`` wins nothing in 50,000 steps;
- Gymnasium 1.x's vector envs reset a finished sub-env on the *next* step (the default
  ``autoreset_mode``): that step's action is ignored. The mask returned with a final
  step holds the pass action alone (never all zeros, so the ``Categorical`` stays
  finite); the step after it is left out of the losses (``valid``);
- sub-env ``k`` plays seat ``k mod 2`` (``agent_id``) against ``--opponent``, so the
  policy learns both sides of the duel, as ``vtm-sim evaluate`` and tournaments play it;
- at the end the policy plays the project's evaluation (:func:`agents.evaluation.evaluate`:
  both seats, the same seeded battles for every opponent, Wilson 95% intervals) against
  ``--eval-opponents`` (default ``nearest`` and ``ladder:3``, the rung above it).

Run (the training extra: torch, CPU build first)::

    .venv/bin/python experiments/cleanrl_ppo_masked.py --seed 1
    .venv/bin/python experiments/cleanrl_ppo_masked.py --total-timesteps 2048 --eval-episodes 5

Its measured figures: experiments/results/cleanrl_ppo_masked.md (and docs/training.md).
"""

import argparse
import dataclasses
import json
import random
import time
from dataclasses import dataclass
from typing import Any

import gymnasium as gym
import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim
from torch.distributions.categorical import Categorical

import envs


@dataclass
class Args:
    exp_name: str = "cleanrl_ppo_masked"
    """the name of this experiment"""
    seed: int = 1
    """seed of the experiment"""
    torch_deterministic: bool = True
    """if toggled, `torch.backends.cudnn.deterministic=False`"""
    threads: int = 1
    """torch's CPU threads (one core)"""

    # Algorithm specific arguments
    scenario: str = "duel"
    """the scenario: the env id is envs.env_id(scenario)"""
    opponent: str = "nearest"
    """the env's opponent policy (envs.opponents)"""
    total_timesteps: int = 250_000
    """total timesteps of the experiments"""
    learning_rate: float = 2.5e-4
    """the learning rate of the optimizer"""
    num_envs: int = 8
    """the number of parallel game environments (sub-env k plays seat k mod 2)"""
    num_steps: int = 64
    """the number of steps to run in each environment per policy rollout"""
    anneal_lr: bool = True
    """Toggle learning rate annealing for policy and value networks"""
    gamma: float = 0.99
    """the discount factor gamma"""
    gae_lambda: float = 0.95
    """the lambda for the general advantage estimation"""
    num_minibatches: int = 4
    """the number of mini-batches"""
    update_epochs: int = 4
    """the K epochs to update the policy"""
    norm_adv: bool = True
    """Toggles advantages normalization"""
    clip_coef: float = 0.2
    """the surrogate clipping coefficient"""
    clip_vloss: bool = True
    """Toggles whether or not to use a clipped loss for the value function"""
    ent_coef: float = 0.01
    """coefficient of the entropy"""
    vf_coef: float = 0.5
    """coefficient of the value function"""
    max_grad_norm: float = 0.5
    """the maximum norm for the gradient clipping"""
    target_kl: float | None = None
    """the target KL divergence threshold"""
    hidden: int = 128
    """the width of the actor's and critic's two hidden layers"""

    # Evaluation (the project's: agents.evaluation.evaluate)
    eval_opponents: str = "nearest,ladder:3"
    """the opponents of the final evaluation (any policy name), comma-separated"""
    eval_episodes: int = 200
    """seeded battles per seat and opponent in the final evaluation (0: none)"""
    eval_seed: int = 1_000_000
    """the first seed of the final evaluation's battles"""
    save: str = ""
    """if set, save the agent's state_dict there (torch.save)"""
    json: bool = False
    """print the summary as JSON on the last line"""

    # to be filled in runtime
    batch_size: int = 0
    """the batch size (computed in runtime)"""
    minibatch_size: int = 0
    """the mini-batch size (computed in runtime)"""
    num_iterations: int = 0
    """the number of iterations (computed in runtime)"""


def parse_args() -> Args:
    """CleanRL reads the dataclass with tyro; argparse does the same here (no extra
    dependency): every field is a ``--kebab-case`` option, a bool a ``--x/--no-x`` pair."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    for f in dataclasses.fields(Args):
        if f.name in ("batch_size", "minibatch_size", "num_iterations"):
            continue
        flag = "--" + f.name.replace("_", "-")
        if f.type is bool:
            p.add_argument(flag, action=argparse.BooleanOptionalAction, default=f.default)
        else:
            kind = float if f.type == float | None else f.type
            p.add_argument(flag, type=kind, default=f.default)
    return Args(**vars(p.parse_args()))


def make_env(env_id: str, seat: int, opponent: str) -> Any:
    def thunk() -> gym.Env[Any, Any]:
        env = gym.make(env_id, agent_id=seat, opponents=opponent)
        return gym.wrappers.RecordEpisodeStatistics(env)

    return thunk


def layer_init(layer: nn.Linear, std: float = np.sqrt(2), bias_const: float = 0.0) -> nn.Linear:
    torch.nn.init.orthogonal_(layer.weight, std)
    torch.nn.init.constant_(layer.bias, bias_const)
    return layer


class Agent(nn.Module):
    def __init__(self, obs_dim: int, n_actions: int, hidden: int) -> None:
        super().__init__()
        self.critic = nn.Sequential(
            layer_init(nn.Linear(obs_dim, hidden)),
            nn.Tanh(),
            layer_init(nn.Linear(hidden, hidden)),
            nn.Tanh(),
            layer_init(nn.Linear(hidden, 1), std=1.0),
        )
        self.actor = nn.Sequential(
            layer_init(nn.Linear(obs_dim, hidden)),
            nn.Tanh(),
            layer_init(nn.Linear(hidden, hidden)),
            nn.Tanh(),
            layer_init(nn.Linear(hidden, n_actions), std=0.01),
        )

    def get_value(self, x: torch.Tensor) -> torch.Tensor:
        return self.critic(x)

    def get_action_and_value(
        self, x: torch.Tensor, mask: torch.Tensor, action: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        logits = self.actor(x)
        # the mask: illegal actions get a large negative logit (never -inf: 0 * inf is NaN
        # in the entropy), so their probability is 0 and their entropy term 0
        logits = torch.where(mask, logits, torch.tensor(-1e8, dtype=logits.dtype))
        probs = Categorical(logits=logits, validate_args=False)
        if action is None:
            action = probs.sample()
        return action, probs.log_prob(action), probs.entropy(), self.critic(x)


class TorchPlayer:
    """The trained agent as the project's agents act (``act(observation, mask)``), for
    :class:`agents.adapter.AgentPolicy`: the most probable legal action."""

    def __init__(self, agent: Agent) -> None:
        self.agent = agent

    def act(self, observation: Any, mask: np.ndarray) -> int:
        with torch.no_grad():
            logits = self.agent.actor(torch.as_tensor(observation, dtype=torch.float32))
        logits = logits.numpy()
        return int(np.flatnonzero(mask)[np.argmax(logits[mask.astype(bool)])])

    def explain(self) -> str:
        return "a masked PPO (experiments/cleanrl_ppo_masked.py)"


def evaluate_agent(agent: Agent, args: Args) -> dict[str, Any]:
    """The project's evaluation: both seats, seeded battles, Wilson 95% intervals."""
    from agents.adapter import AgentPolicy
    from agents.evaluation import evaluate
    from vtm_sim.files.scenarios import load_scenario
    from vtm_sim.policies.registry import maker

    scenario = load_scenario(args.scenario)
    policy = AgentPolicy(TorchPlayer(agent), scenario)
    names = [n.strip() for n in args.eval_opponents.split(",") if n.strip()]
    ev = evaluate(scenario, lambda _rng, _cid: policy, {n: maker(n, scenario) for n in names},
                  episodes=args.eval_episodes, seed=args.eval_seed)
    for line in ev.lines():
        print(line)
    return ev.to_json()


def main() -> dict[str, Any]:
    args = parse_args()
    args.batch_size = int(args.num_envs * args.num_steps)
    args.minibatch_size = int(args.batch_size // args.num_minibatches)
    args.num_iterations = max(1, args.total_timesteps // args.batch_size)
    env_id = envs.env_id(args.scenario)
    run_name = f"{env_id}__{args.exp_name}__{args.seed}__{int(time.time())}"
    print(f"{run_name}: {args.num_iterations * args.batch_size} steps against {args.opponent}")

    # TRY NOT TO MODIFY: seeding
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    torch.backends.cudnn.deterministic = args.torch_deterministic
    torch.set_num_threads(args.threads)
    device = torch.device("cpu")

    # env setup: sub-env k plays seat k mod 2 (the duel's two sides)
    envs_ = gym.vector.SyncVectorEnv(
        [make_env(env_id, i % 2, args.opponent) for i in range(args.num_envs)])
    assert isinstance(envs_.single_action_space, gym.spaces.Discrete), \
        "only discrete action space is supported"
    obs_dim = int(np.prod(envs_.single_observation_space.shape))
    n_actions = int(envs_.single_action_space.n)

    agent = Agent(obs_dim, n_actions, args.hidden).to(device)
    optimizer = optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)

    # ALGO Logic: Storage setup
    obs = torch.zeros((args.num_steps, args.num_envs, obs_dim)).to(device)
    masks = torch.zeros((args.num_steps, args.num_envs, n_actions), dtype=torch.bool).to(device)
    actions = torch.zeros((args.num_steps, args.num_envs), dtype=torch.long).to(device)
    logprobs = torch.zeros((args.num_steps, args.num_envs)).to(device)
    rewards = torch.zeros((args.num_steps, args.num_envs)).to(device)
    dones = torch.zeros((args.num_steps, args.num_envs)).to(device)
    valid = torch.zeros((args.num_steps, args.num_envs)).to(device)  # not an autoreset step
    values = torch.zeros((args.num_steps, args.num_envs)).to(device)

    # TRY NOT TO MODIFY: start the game
    global_step = 0
    start_time = time.time()
    next_obs_np, info = envs_.reset(seed=args.seed)
    next_obs = torch.Tensor(next_obs_np).to(device)
    next_mask = torch.as_tensor(info["action_mask"].astype(bool)).to(device)
    next_done = torch.zeros(args.num_envs).to(device)
    episodes: list[float] = []  # returns of the finished episodes (+1 win, -1 loss, 0 draw)

    for iteration in range(1, args.num_iterations + 1):
        # Annealing the rate if instructed to do so.
        if args.anneal_lr:
            frac = 1.0 - (iteration - 1.0) / args.num_iterations
            optimizer.param_groups[0]["lr"] = frac * args.learning_rate

        for step in range(0, args.num_steps):
            global_step += args.num_envs
            obs[step] = next_obs
            masks[step] = next_mask
            dones[step] = next_done
            valid[step] = 1.0 - next_done  # after a final step the autoreset ignores the action

            # ALGO LOGIC: action logic
            with torch.no_grad():
                action, logprob, _, value = agent.get_action_and_value(next_obs, next_mask)
                values[step] = value.flatten()
            actions[step] = action
            logprobs[step] = logprob

            # TRY NOT TO MODIFY: execute the game and log data.
            next_obs_np, reward, terminations, truncations, info = envs_.step(action.cpu().numpy())
            next_done_np = np.logical_or(terminations, truncations)
            rewards[step] = torch.tensor(reward).to(device).view(-1)
            next_obs = torch.Tensor(next_obs_np).to(device)
            next_mask = torch.as_tensor(info["action_mask"].astype(bool)).to(device)
            next_done = torch.Tensor(next_done_np).to(device)

            if "episode" in info:
                for i in np.flatnonzero(info["_episode"]):
                    episodes.append(float(info["episode"]["r"][i]))

        # bootstrap value if not done
        with torch.no_grad():
            next_value = agent.get_value(next_obs).reshape(1, -1)
            advantages = torch.zeros_like(rewards).to(device)
            lastgaelam = 0
            for t in reversed(range(args.num_steps)):
                if t == args.num_steps - 1:
                    nextnonterminal = 1.0 - next_done
                    nextvalues = next_value
                else:
                    nextnonterminal = 1.0 - dones[t + 1]
                    nextvalues = values[t + 1]
                delta = rewards[t] + args.gamma * nextvalues * nextnonterminal - values[t]
                advantages[t] = lastgaelam = (
                    delta + args.gamma * args.gae_lambda * nextnonterminal * lastgaelam)
            returns = advantages + values

        # flatten the batch
        b_obs = obs.reshape((-1, obs_dim))
        b_masks = masks.reshape((-1, n_actions))
        b_logprobs = logprobs.reshape(-1)
        b_actions = actions.reshape(-1)
        b_advantages = advantages.reshape(-1)
        b_returns = returns.reshape(-1)
        b_values = values.reshape(-1)
        b_valid = valid.reshape(-1)

        # Optimizing the policy and value network
        b_inds = np.arange(args.batch_size)
        clipfracs = []
        for _epoch in range(args.update_epochs):
            np.random.shuffle(b_inds)
            for start in range(0, args.batch_size, args.minibatch_size):
                end = start + args.minibatch_size
                mb_inds = b_inds[start:end]
                mb_valid = b_valid[mb_inds]
                n_valid = mb_valid.sum().clamp(min=1.0)

                _, newlogprob, entropy, newvalue = agent.get_action_and_value(
                    b_obs[mb_inds], b_masks[mb_inds], b_actions.long()[mb_inds])
                logratio = newlogprob - b_logprobs[mb_inds]
                ratio = logratio.exp()

                with torch.no_grad():
                    # calculate approx_kl http://joschu.net/blog/kl-approx.html
                    old_approx_kl = (-logratio).mean()
                    approx_kl = ((ratio - 1) - logratio).mean()
                    clipfracs += [((ratio - 1.0).abs() > args.clip_coef).float().mean().item()]

                mb_advantages = b_advantages[mb_inds]
                if args.norm_adv:
                    mean = (mb_advantages * mb_valid).sum() / n_valid
                    var = (((mb_advantages - mean) * mb_valid) ** 2).sum() / n_valid
                    mb_advantages = (mb_advantages - mean) / (var.sqrt() + 1e-8)

                # Policy loss
                pg_loss1 = -mb_advantages * ratio
                pg_loss2 = -mb_advantages * torch.clamp(
                    ratio, 1 - args.clip_coef, 1 + args.clip_coef)
                pg_loss = (torch.max(pg_loss1, pg_loss2) * mb_valid).sum() / n_valid

                # Value loss
                newvalue = newvalue.view(-1)
                if args.clip_vloss:
                    v_loss_unclipped = (newvalue - b_returns[mb_inds]) ** 2
                    v_clipped = b_values[mb_inds] + torch.clamp(
                        newvalue - b_values[mb_inds], -args.clip_coef, args.clip_coef)
                    v_loss_clipped = (v_clipped - b_returns[mb_inds]) ** 2
                    v_loss_max = torch.max(v_loss_unclipped, v_loss_clipped)
                    v_loss = 0.5 * (v_loss_max * mb_valid).sum() / n_valid
                else:
                    v_loss = 0.5 * (((newvalue - b_returns[mb_inds]) ** 2) * mb_valid).sum() \
                        / n_valid

                entropy_loss = (entropy * mb_valid).sum() / n_valid
                loss = pg_loss - args.ent_coef * entropy_loss + v_loss * args.vf_coef

                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
                optimizer.step()

            if args.target_kl is not None and approx_kl > args.target_kl:
                break

        if iteration % 20 == 0 or iteration == args.num_iterations:
            recent = episodes[-200:]
            sps = int(global_step / (time.time() - start_time))
            wins = sum(r > 0.5 for r in recent) / max(1, len(recent))
            print(f"global_step={global_step} episodes={len(episodes)} "
                  f"win_rate(last {len(recent)})={wins:.3f} "
                  f"approx_kl={approx_kl.item():.4f} old_approx_kl={old_approx_kl.item():.4f} "
                  f"clipfrac={np.mean(clipfracs):.3f} SPS={sps}",
                  flush=True)

    envs_.close()
    train_seconds = time.time() - start_time
    summary: dict[str, Any] = {
        "env_id": env_id, "seed": args.seed, "opponent": args.opponent,
        "steps": global_step, "episodes": len(episodes), "train_seconds": round(train_seconds, 1),
    }
    print(f"trained {global_step} steps on {env_id} in {train_seconds:.0f} s")
    if args.save:
        torch.save(agent.state_dict(), args.save)
    if args.eval_episodes > 0:
        t = time.time()
        summary["evaluation"] = evaluate_agent(agent, args)
        summary["eval_seconds"] = round(time.time() - t, 1)
    if args.json:
        print(json.dumps(summary))
    return summary


if __name__ == "__main__":
    main()
