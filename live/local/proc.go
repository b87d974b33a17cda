package local

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

// procStat is what /proc/PID/stat says of a process.
type procStat struct {
	state byte
	pgrp  int
	start uint64 // clock ticks after boot
}

func readStat(pid int) (procStat, error) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procStat{}, err
	}
	// The command name, in parentheses, may hold anything: fields start
	// after its last ')'.
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return procStat{}, fmt.Errorf("/proc/%d/stat: no command field", pid)
	}
	f := bytes.Fields(data[i+1:])
	if len(f) < 20 {
		return procStat{}, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f))
	}
	var st procStat
	st.state = f[0][0]
	if st.pgrp, err = strconv.Atoi(string(f[2])); err != nil {
		return procStat{}, fmt.Errorf("/proc/%d/stat: pgrp: %w", pid, err)
	}
	if st.start, err = strconv.ParseUint(string(f[19]), 10, 64); err != nil {
		return procStat{}, fmt.Errorf("/proc/%d/stat: starttime: %w", pid, err)
	}
	return st, nil
}

// process is a handle on one process that a later process reusing its pid
// cannot take over: signals go through its pidfd.
type process struct {
	fd  int
	pid int
}

// openProcess opens pid, provided it is the process that started at
// start; nil when that process is gone.
func openProcess(pid int, start uint64) (*process, error) {
	if pid <= 0 {
		return nil, nil
	}
	fd, err := unix.PidfdOpen(pid, 0)
	if errors.Is(err, unix.ESRCH) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("pidfd_open %d: %w", pid, err)
	}
	// Read after the pidfd is open: if pid was reused before, the start
	// time differs; if the process dies after, the pidfd says so.
	st, err := readStat(pid)
	if err != nil || st.start != start || st.state == 'Z' {
		unix.Close(fd)
		return nil, nil
	}
	return &process{fd: fd, pid: pid}, nil
}

// exited says whether the process has ended.
func (p *process) exited() bool {
	fds := []unix.PollFd{{Fd: int32(p.fd), Events: unix.POLLIN}}
	for {
		n, err := unix.Poll(fds, 0)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		return err != nil || n > 0
	}
}

// signal sends sig to the process itself; an ended one is not an error.
func (p *process) signal(sig unix.Signal) error {
	err := unix.PidfdSendSignal(p.fd, sig, nil, 0)
	if errors.Is(err, unix.ESRCH) {
		return nil
	}
	return err
}

func (p *process) close() { unix.Close(p.fd) }

// killGroup kills what is left of a run's process group once its shim is
// gone, and only that group. pgid names the group while a member is left:
// the kernel does not give a number in use as a group id to a new process.
// So the group is the run's if its leader is the process that started at
// leaderStart, or if the leader is gone and others still carry the id.
// Each member is signalled through a pidfd opened before it is checked.
func killGroup(pgid int, leaderStart uint64) error {
	if pgid <= 1 {
		return nil
	}
	for try := 0; try < 100; try++ {
		if st, err := readStat(pgid); err == nil && st.start != leaderStart {
			return nil // the number now names another process: the run's group ended
		}
		left, err := groupMembers(pgid, leaderStart)
		if err != nil {
			return err
		}
		if len(left) == 0 {
			return nil
		}
		for _, pid := range left {
			fd, err := unix.PidfdOpen(pid, 0)
			if err != nil {
				continue
			}
			if st, err := readStat(pid); err == nil && st.pgrp == pgid && st.start >= leaderStart {
				_ = unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0)
			}
			unix.Close(fd)
		}
		time.Sleep(10 * time.Millisecond)
	}
	return fmt.Errorf("process group %d still has members after SIGKILL", pgid)
}

// groupMembers lists the live (not zombie) processes of group pgid that
// started no earlier than its leader.
func groupMembers(pgid int, leaderStart uint64) ([]int, error) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		st, err := readStat(pid)
		if err != nil || st.pgrp != pgid || st.state == 'Z' || st.start < leaderStart {
			continue
		}
		out = append(out, pid)
	}
	return out, nil
}
