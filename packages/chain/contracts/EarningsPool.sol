// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";

/// @title Staking pool of the platform token, paying rewards from its own reserve.
/// @notice The pool's token balance is the stakes plus the rewards reserve:
///         `poolAvailable() = token.balanceOf(this) - totalStaked()`. The reserve grows by `fund` (and plan
///         payments, which are plain transfers to this contract) and shrinks by the rewards paid.
///         The APY depends on the reserve size (whole tokens): >= 50M 120%, >= 40M 80%, >= 30M 50%,
///         >= 20M 35%, >= 10M 20%, >= 5M 10%, >= 2M 5%, >= 1M 3%, else 0%.
///
///         Accrual is per user and checkpointed at each of the user's interactions (stake, unstake,
///         claim, payout): `pending += staked * apyBps * dt / (10000 * 365 days)`, where `dt` is the time
///         since the user's previous checkpoint and `apyBps` is the APY in force AT THE CHECKPOINT (the
///         reserve then), not a time-weighted average of the APY over `dt`. The keeper's periodic
///         `payout` keeps `dt` short, which keeps that approximation close.
///
///         Rewards are paid in chunks: whenever a checkpoint finds pending >= 2 tokens
///         (`AUTO_PAY_THRESHOLD`) it pays them, capped by the reserve (the unpaid rest stays pending).
contract EarningsPool is Ownable, ReentrancyGuard {
    using SafeERC20 for IERC20;

    /// @dev 2 whole tokens: pending rewards are paid once they reach this.
    uint256 public constant AUTO_PAY_THRESHOLD = 2e18;
    uint256 private constant BPS = 10_000;
    uint256 private constant YEAR = 365 days;

    IERC20 public immutable token;

    struct Account {
        uint256 staked; // token base units
        uint256 pending; // token base units accrued up to `checkpoint`, not yet paid
        uint256 paid; // token base units paid, all time
        uint64 checkpoint; // unix seconds of the last accrual
    }

    mapping(address => Account) private _accounts;
    uint256 private _totalStaked;

    error InvalidAmount();
    error InsufficientStake();
    error InsufficientLiquidity();
    error NothingToClaim();

    event Staked(address indexed user, uint256 amount);
    event Unstaked(address indexed user, uint256 amount);
    event RewardPaid(address indexed user, uint256 amount);
    event Funded(address indexed from, uint256 amount);
    event LiquidityWithdrawn(address indexed to, uint256 amount);

    constructor(address token_) Ownable(msg.sender) {
        token = IERC20(token_);
    }

    // ---- views ----

    /// @notice The rewards reserve in token base units (the balance minus the stakes).
    function poolAvailable() public view returns (uint256) {
        return token.balanceOf(address(this)) - _totalStaked;
    }

    /// @notice The current APY in basis points (12000 = 120%), from the reserve size.
    function apyBps() public view returns (uint256) {
        uint256 whole = poolAvailable() / 1e18;
        if (whole >= 50_000_000) return 12_000;
        if (whole >= 40_000_000) return 8_000;
        if (whole >= 30_000_000) return 5_000;
        if (whole >= 20_000_000) return 3_500;
        if (whole >= 10_000_000) return 2_000;
        if (whole >= 5_000_000) return 1_000;
        if (whole >= 2_000_000) return 500;
        if (whole >= 1_000_000) return 300;
        return 0;
    }

    function totalStaked() external view returns (uint256) {
        return _totalStaked;
    }

    function stakedOf(address user) external view returns (uint256) {
        return _accounts[user].staked;
    }

    /// @notice Pending rewards now (token base units): the checkpointed amount plus the accrual since then
    ///         at the current APY.
    function pendingRewards(address user) external view returns (uint256) {
        Account storage a = _accounts[user];
        return a.pending + _accrued(a);
    }

    /// @notice Reward rate of `user` at the current APY, in token base units (wei) per second.
    function rewardPerSecond(address user) external view returns (uint256) {
        return (_accounts[user].staked * apyBps()) / (BPS * YEAR);
    }

    /// @notice Rewards paid to `user` so far (token base units).
    function totalPaid(address user) external view returns (uint256) {
        return _accounts[user].paid;
    }

    // ---- user actions ----

    /// @notice Stakes `amount` token base units (approve this contract first).
    function stake(uint256 amount) external nonReentrant {
        if (amount == 0) revert InvalidAmount();
        Account storage a = _checkpoint(msg.sender);
        token.safeTransferFrom(msg.sender, address(this), amount);
        a.staked += amount;
        _totalStaked += amount;
        emit Staked(msg.sender, amount);
        _payIfDue(msg.sender, a, AUTO_PAY_THRESHOLD);
    }

    function unstake(uint256 amount) external nonReentrant {
        if (amount == 0) revert InvalidAmount();
        Account storage a = _checkpoint(msg.sender);
        if (a.staked < amount) revert InsufficientStake();
        a.staked -= amount;
        _totalStaked -= amount;
        token.safeTransfer(msg.sender, amount);
        emit Unstaked(msg.sender, amount);
        _payIfDue(msg.sender, a, AUTO_PAY_THRESHOLD);
    }

    /// @notice Pays the caller's pending rewards once they reach 2 tokens (the same rule as the automatic
    ///         payment); reverts `NothingToClaim()` when nothing is paid, so a wallet shows why.
    function claim() external nonReentrant {
        Account storage a = _checkpoint(msg.sender);
        if (_payIfDue(msg.sender, a, AUTO_PAY_THRESHOLD) == 0) revert NothingToClaim();
    }

    /// @notice Checkpoints each of `users` and pays those whose pending reached 2 tokens. Open to anyone
    ///         (the server's keeper calls it every minute); it only ever pays users their own rewards.
    function payout(address[] calldata users) external nonReentrant {
        for (uint256 i = 0; i < users.length; ++i) {
            address user = users[i];
            _payIfDue(user, _checkpoint(user), AUTO_PAY_THRESHOLD);
        }
    }

    /// @notice Adds `amount` token base units to the rewards reserve (approve this contract first).
    function fund(uint256 amount) external nonReentrant {
        if (amount == 0) revert InvalidAmount();
        token.safeTransferFrom(msg.sender, address(this), amount);
        emit Funded(msg.sender, amount);
    }

    /// @notice Owner takes `amount` token base units out of the reserve (never the stakes).
    function withdraw(address to, uint256 amount) external onlyOwner nonReentrant {
        if (amount == 0) revert InvalidAmount();
        if (amount > poolAvailable()) revert InsufficientLiquidity();
        token.safeTransfer(to, amount);
        emit LiquidityWithdrawn(to, amount);
    }

    // ---- internals ----

    function _accrued(Account storage a) private view returns (uint256) {
        if (a.staked == 0 || a.checkpoint == 0) return 0;
        return (a.staked * apyBps() * (block.timestamp - a.checkpoint)) / (BPS * YEAR);
    }

    function _checkpoint(address user) private returns (Account storage a) {
        a = _accounts[user];
        a.pending += _accrued(a);
        a.checkpoint = uint64(block.timestamp);
    }

    /// @return amount paid (token base units), capped by the reserve; 0 below `threshold`.
    function _payIfDue(address user, Account storage a, uint256 threshold) private returns (uint256 amount) {
        if (a.pending < threshold) return 0;
        uint256 available = poolAvailable();
        amount = a.pending < available ? a.pending : available;
        if (amount == 0) return 0;
        a.pending -= amount;
        a.paid += amount;
        token.safeTransfer(user, amount);
        emit RewardPaid(user, amount);
    }
}
