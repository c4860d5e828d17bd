package metadataquorum

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/kboxdev/kbox/pkg/config"
	"github.com/kboxdev/kbox/pkg/quorum"
)

func (in *invocation) addController(ctx context.Context) error {
	if in.cc == "" {
		return terse(in.f, "You must supply the configuration file of the controller you are adding when using add-controller.")
	}
	props, err := config.LoadPropertiesFile(in.cc)
	if err != nil {
		return terse(in.f, err.Error())
	}
	v, msg := controllerVoter(props)
	if msg != "" {
		return terse(in.f, msg)
	}
	dry := in.ns.Bool("dry_run")
	if !dry {
		t, closeFn, err := in.connect(ctx, true)
		if err != nil {
			return err
		}
		defer closeFn()
		if err := quorum.AddVoter(ctx, t, v); err != nil {
			return in.failed(err)
		}
	}
	var b strings.Builder
	if dry {
		b.WriteString("DRY RUN of adding")
	} else {
		b.WriteString("Added")
	}
	fmt.Fprintf(&b, " controller %d with directory id %s and endpoints: ", v.ID, quorum.UUID(v.DirectoryID))
	for i, e := range v.Endpoints {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(e.String())
	}
	fmt.Fprintln(in.f.IO.Out, b.String())
	return nil
}

// controllerVoter reads the controller to add from its server properties,
// with the tool's checks in its order; msg is the tool's message.
func controllerVoter(props *config.Properties) (quorum.Voter, string) {
	var v quorum.Voter
	const hint = " Is this a valid controller configuration file?"
	idText, ok := props.Get("node.id")
	if !ok {
		return v, "node.id not found in configuration file." + hint
	}
	id, err := strconv.ParseInt(strings.TrimSpace(idText), 10, 32)
	if err != nil {
		return v, fmt.Sprintf("For input string: \"%s\"", idText)
	}
	if id < 0 {
		return v, "node.id was negative in configuration file." + hint
	}
	if roles, _ := props.Get("process.roles"); !strings.Contains(roles, "controller") {
		return v, "process.roles did not contain 'controller' in configuration file." + hint
	}
	v.ID = int32(id)
	dir, ok := props.Get("metadata.log.dir")
	if !ok {
		logDirs, has := props.Get("log.dirs")
		if !has {
			return v, "Neither metadata.log.dir nor log.dirs were found." + hint
		}
		dir = strings.Split(strings.TrimSpace(logDirs), ",")[0]
	}
	meta, err := config.LoadPropertiesFile(filepath.Join(dir, "meta.properties"))
	if err != nil {
		return v, "Unable to read meta.properties from " + dir
	}
	dirID, ok := meta.Get("directory.id")
	if !ok {
		return v, "No directory id found in " + dir
	}
	if v.DirectoryID, err = quorum.ParseUUID(dirID); err != nil {
		return v, err.Error()
	}
	eps, msg := controllerEndpoints(props)
	v.Endpoints = eps
	return v, msg
}

// controllerEndpoints are the controller listeners' endpoints, advertised
// ones winning over listeners.
func controllerEndpoints(props *config.Properties) ([]quorum.Endpoint, string) {
	listeners := map[string]quorum.Endpoint{}
	for _, key := range []string{"listeners", "advertised.listeners"} {
		v, _ := props.Get(key)
		for _, l := range strings.Split(v, ",") {
			l = strings.TrimSpace(l)
			name, hostPort, ok := strings.Cut(l, "://")
			if !ok {
				continue
			}
			i := strings.LastIndex(hostPort, ":")
			if i < 0 {
				continue
			}
			port, err := strconv.Atoi(hostPort[i+1:])
			if err != nil {
				continue
			}
			host := strings.Trim(hostPort[:i], "[]")
			if host == "" {
				host = "localhost"
			}
			name = strings.ToUpper(name)
			listeners[name] = quorum.Endpoint{Name: name, Host: host, Port: port}
		}
	}
	names, ok := props.Get("controller.listener.names")
	if !ok {
		return nil, "controller.listener.names was not found. Is this a valid controller configuration file?"
	}
	var out []quorum.Endpoint
	seen := map[string]bool{}
	for _, n := range strings.Split(names, ",") {
		n = strings.ToUpper(strings.TrimSpace(n))
		e, ok := listeners[n]
		if !ok {
			return nil, "Cannot find information about controller listener name: " + n
		}
		if !seen[n] {
			out = append(out, e)
			seen[n] = true
		}
	}
	return out, ""
}
