"""The network of :mod:`hexstones.ai.net` as a PyTorch module, for training.

The parameters carry the names and shapes of :func:`hexstones.ai.net.param_shapes` and the
forward pass is the numpy one written with torch operations, so weights move between the
two without conversion (:func:`torch_net`, :func:`to_network`) and the tests hold both to
the same outputs.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from torch import nn

from hexstones.ai.net import SCORE_SCALE, Network, gather_index, param_shapes, size_scale


class TorchNet(nn.Module):
    def __init__(self, config: dict[str, Any], params: dict[str, np.ndarray]):
        super().__init__()
        self.config = dict(config)
        self.weights = nn.ParameterDict({
            name: nn.Parameter(torch.from_numpy(np.array(params[name], np.float32)))
            for name in param_shapes(config)})

    @staticmethod
    def _pool(x: torch.Tensor) -> torch.Tensor:
        mean = x.mean(dim=1)
        return torch.cat([mean, mean * size_scale(x.shape[1]), x.amax(dim=1)], dim=1)

    @staticmethod
    def _hexconv(x, idx, w, b):
        B, P, C = x.shape
        padded = torch.cat([x, x.new_zeros(B, 1, C)], dim=1)
        return padded.index_select(1, idx.reshape(-1)).reshape(B, P, 7 * C) @ w + b

    def forward(self, x: torch.Tensor, idx: torch.Tensor):
        """``x`` float ``[B, P, C]``, ``idx`` long ``[P, 7]`` (:func:`gather_index`):
        ``(policy logits [B, P+1], value [B], score [B] or None, ownership [B, P] or None)``."""
        p = self.weights
        relu = torch.relu
        x = relu(self._hexconv(x, idx, p["stem_w"], p["stem_b"]))
        for i in range(self.config["blocks"]):
            h = relu(self._hexconv(x, idx, p[f"b{i}_c1_w"], p[f"b{i}_c1_b"]))
            h = relu(h + (self._pool(h) @ p[f"b{i}_g_w"] + p[f"b{i}_g_b"])[:, None, :])
            x = relu(x + self._hexconv(h, idx, p[f"b{i}_c2_w"], p[f"b{i}_c2_b"]))
        pooled = self._pool(x)
        ph = relu(x @ p["p_c_w"] + p["p_c_b"] + (pooled @ p["p_g_w"])[:, None, :])
        point_logits = (ph @ p["p_o_w"] + p["p_o_b"])[..., 0]
        special = self._pool(ph) @ p["p_s_w"] + p["p_s_b"]
        logits = torch.cat([point_logits, special], dim=1)
        vh = relu(pooled @ p["v_f_w"] + p["v_f_b"])
        value = torch.tanh(vh @ p["v_o_w"] + p["v_o_b"])[:, 0]
        score = ownership = None
        if self.config["has_score"]:
            score = (vh @ p["s_o_w"] + p["s_o_b"])[:, 0] * SCORE_SCALE
            ownership = torch.tanh(x @ p["o_w"] + p["o_b"])[..., 0]
        return logits, value, score, ownership


def torch_net(network: Network, device: str = "cpu") -> TorchNet:
    return TorchNet(network.config, network.params).to(device)


def to_network(module: TorchNet, trained: bool, meta: dict[str, Any]) -> Network:
    params = {name: value.detach().cpu().numpy().copy() for name, value in module.weights.items()}
    return Network(module.config, params, trained, meta)


def torch_index(nbr: np.ndarray, device: str = "cpu") -> torch.Tensor:
    return torch.from_numpy(gather_index(nbr).astype(np.int64)).to(device)
